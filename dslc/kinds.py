"""The block kinds of `.dp`, in one static table.

Every kind names its grammar start rule (``grammar/dp.lark``), the backend
module that takes a parsed block of that kind through the phases (``lower``:
IR and semantic checks; ``analyse``: the verdict's data; ``report``: the
block's result and diagnostics — see docs/architecture.md), and its family of
analyses.  Nothing registers itself by being imported: adding a block kind
means adding a row here, a rule to the grammar and a backend function.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class BlockKind:
    keyword: str
    start_rule: str          # the grammar's start rule for a block of this kind
    backend: str             # the module with the phases `lower`, `analyse`, `report`
    family: str              # dipa | bounded | correlated
    title: str               # what the block is, in words

    def module(self) -> ModuleType:
        """The backend module (imported on first use: start-up stays fast)."""
        return importlib.import_module(self.backend)


KINDS: dict[str, BlockKind] = {k.keyword: k for k in (
    BlockKind("automaton", "automaton_block", "dslc.dipa.backend", "dipa",
              "a DiP automaton"),
    BlockKind("mechanism", "mechanism_block", "dslc.dipa.backend", "dipa",
              "a mechanism program, lowered to a DiP automaton"),
    BlockKind("hmm", "hmm_block", "dslc.bounded.backend", "bounded",
              "a hidden Markov model, checked for Pufferfish privacy up to a horizon"),
    BlockKind("mdp", "mdp_block", "dslc.bounded.backend", "bounded",
              "a Markov decision process, checked for Pufferfish privacy up to a horizon"),
    BlockKind("chain", "chain_block", "dslc.correlated.backend", "correlated",
              "a Markov chain of correlated data, calibrated for Pufferfish privacy"),
    # programs of mechanisms (docs/composition.md): an `import` line is read by
    # dslc.pipeline.check_source as a declaration of the file, not as a block
    BlockKind("import", "import_block", "dslc.compose.backend", "program",
              "an import of mechanisms from the standard library or another file"),
    BlockKind("release", "release_block", "dslc.compose.backend", "program",
              "a data release: calls of mechanisms with shares of ε, composed against a budget"),
)}

KEYWORDS: tuple[str, ...] = tuple(KINDS)
START_RULES: dict[str, str] = {k.keyword: k.start_rule for k in KINDS.values()}
