"""Numeric sparse (examples/numeric_sparse.dp) with its answer released the
naive way: ``q + rng.laplace(0, 9/ε)``, a floating-point Laplace sample
added to the query.

The values NumPy's Laplace sampler can return are a sparse set of doubles
(a logarithm of one of 2^53 uniform values, rounded), and adding the query
moves them off that set.  So the released number tells whether the query
was 0 or 1 far better than the noise allows (Mironov, "On significance of
the least significant bits for differential privacy", CCS 2012).  The
distribution is right (the conformance tests pass); the privacy is not:

    dslc audit examples/numeric_sparse.dp --block numeric_sparse \\
        --impl examples/audit/numeric_sparse_float.py:numeric_sparse \\
        --pair '0;1' --event-function examples/audit/numeric_sparse_float.py:released_unshifted \\
        --epsilon 1/10 --samples 4000
"""

import math

TWO_53 = 2.0 ** 53


def numeric_sparse(queries, rng, epsilon, threshold=0.0):
    noisy_threshold = threshold + rng.laplace(0.0, 9.0 / (4.0 * epsilon))
    answers = []
    for q in queries:
        if q + rng.laplace(0.0, 9.0 / (2.0 * epsilon)) >= noisy_threshold:
            answers.append(q + rng.laplace(0.0, 9.0 / epsilon))      # the naive release
            break
        answers.append(False)
    return answers


def sampler_can_return(t, scale):
    """Whether NumPy's ``Generator.laplace(0.0, scale)`` can return the double
    t: it computes ``0 - scale·log(2 − U − U)`` for U ≥ 1/2 and
    ``0 + scale·log(U + U)`` below, U a multiple of 2^-53; the U that could
    give t are recomputed and compared exactly."""
    if t >= 0:
        u0 = 1.0 - math.exp(-t / scale) / 2.0
    else:
        u0 = math.exp(t / scale) / 2.0
    k0 = int(round(u0 * TWO_53))
    for k in range(k0 - 6, k0 + 7):
        if 0 < k < TWO_53:
            u = k / TWO_53
            v = 0.0 - scale * math.log(2.0 - u - u) if u >= 0.5 else 0.0 + scale * math.log(u + u)
            if v == t:
                return True
    return False


def released_unshifted(outputs, epsilon):
    """The event: a value was released, and it is one the sampler can return
    by itself, i.e. one that query 0 releases unchanged."""
    return bool(outputs) and not isinstance(outputs[-1], bool) and sampler_can_return(outputs[-1], 9.0 / epsilon)
