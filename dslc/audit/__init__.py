"""`dslc audit`: test a Python implementation against its checked model.

The package is analysis only (it never prints):

- :mod:`dslc.audit.spec` reads ``--impl`` and ``--adapter`` and turns what
  an implementation returns into the model's outputs (used in the workers);
- :mod:`dslc.audit.worker` runs one chunk of samples, seeded by its index;
- :mod:`dslc.audit.executor` hands chunks to processes, Ray or Dask;
- :mod:`dslc.audit.model` gives the model's side: the inputs to test, the
  exact probability of every output sequence, the privacy pairs and events;
- :mod:`dslc.audit.stats` holds the statistics (G-test, two-sample tests,
  Clopper–Pearson, Holm);
- :mod:`dslc.audit.run` strings them together into an :class:`AuditReport`.

docs/audit.md is the user's description.
"""
