"""Which files `dslc check` reads: ruff's rules of file discovery, for `.dp`.

- A folder is walked recursively (:func:`dslc.pipeline.collect_paths`, which
  follows symbolic links safely and reports what it cannot read); a file
  under it is checked when its name matches an ``include`` pattern (default
  ``*.dp``, matched without regard to case: ``SVT.DP`` is checked).
- Files and folders matching an ``exclude`` pattern (default
  :data:`DEFAULT_EXCLUDE`, ruff's list and ``__pycache__``) or an
  ``extend-exclude`` pattern are not walked into.  A pattern without ``/``
  matches a file or folder name anywhere (``build``, ``old_*.dp``); one with
  ``/`` matches the path relative to the project root (``tests/fixtures``,
  ``drafts/*.dp``).  ``*`` matches any text, ``/`` included (as ruff's globs).
- What ``.gitignore`` files ignore is skipped (``respect-gitignore``):
  those of the folders walked and of their parents up to the root of the git
  repository, each pattern relative to its file's folder, the deeper file
  and the later line winning, as git reads them (matching by the
  ``pathspec`` library).
- A file named on the command line is always checked, unless
  ``force-exclude`` is set and an exclusion matches it (ruff's
  ``--force-exclude``, for pre-commit hooks that pass every changed file).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

from dslc.config import Config

DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv",
)


@dataclass
class Discovery:
    root: str = "."                                   # relative patterns are relative to it
    include: list[str] = field(default_factory=lambda: ["*.dp"])
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False

    @classmethod
    def of(cls, config: Config, exclude: list[str] | None = None, extend_exclude: list[str] | None = None,
           respect_gitignore: bool | None = None, force_exclude: bool | None = None) -> "Discovery":
        """The settings of ``config``; the flags given (not None) win."""
        d = cls(root=os.path.abspath(config.root))
        d.include = config.get("include", d.include)
        d.exclude = exclude if exclude is not None else config.get("exclude", d.exclude)
        d.extend_exclude = config.get("extend-exclude", []) + (extend_exclude or [])
        d.respect_gitignore = config.get("respect-gitignore", True) if respect_gitignore is None else respect_gitignore
        d.force_exclude = config.get("force-exclude", False) if force_exclude is None else force_exclude
        return d

    def __post_init__(self) -> None:
        self._gitignores: dict[str, object | None] = {}
        self._repo_roots: dict[str, str | None] = {}

    # ---------------------------------------------------------------- matching
    def _relative(self, path: str) -> str:
        rel = os.path.relpath(os.path.abspath(path), self.root)
        return rel.replace(os.sep, "/")

    def excluded(self, path: str) -> bool:
        """Whether an exclude or extend-exclude pattern matches ``path`` itself."""
        name = os.path.basename(os.path.normpath(path))
        rel = self._relative(path)
        for pattern in (*self.exclude, *self.extend_exclude):
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                if fnmatch.fnmatchcase(rel, pattern.lstrip("./")) or \
                        fnmatch.fnmatchcase(os.path.abspath(path).replace(os.sep, "/"), pattern):
                    return True
            elif fnmatch.fnmatchcase(name, pattern):
                return True
        return False

    def excluded_with_parents(self, path: str) -> bool:
        """``excluded`` for a file named on the command line: the file or a
        folder above it (up to the project root) is excluded."""
        p = os.path.abspath(path)
        while True:
            if self.excluded(p):
                return True
            parent = os.path.dirname(p)
            if parent == p or not (parent + os.sep).startswith(self.root + os.sep) or parent == self.root:
                return False
            p = parent

    def included(self, path: str) -> bool:
        name = os.path.basename(path).lower()
        rel = self._relative(path).lower()
        return any(fnmatch.fnmatchcase(rel if "/" in p else name, p.lower()) for p in self.include)

    def ignored_by_git(self, path: str, is_dir: bool) -> bool:
        """Whether the .gitignore files above ``path`` ignore it (the last match wins)."""
        if not self.respect_gitignore:
            return False
        full = os.path.abspath(path)
        folders = []
        folder = os.path.dirname(full)
        stop = self._repo_root(folder)
        while True:
            folders.append(folder)
            if folder == stop:
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for folder in folders:                      # the deepest .gitignore first: it wins
            spec = self._gitignore(folder)
            if spec is None:
                continue
            rel = os.path.relpath(full, folder).replace(os.sep, "/") + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                return bool(result.include)
        return False

    def _repo_root(self, folder: str) -> str | None:
        """The folder holding ``.git`` above ``folder`` (None outside a repository:
        then only the .gitignore files of the folders walked are read)."""
        if folder not in self._repo_roots:
            probe, root = folder, None
            while True:
                if os.path.exists(os.path.join(probe, ".git")):
                    root = probe
                    break
                parent = os.path.dirname(probe)
                if parent == probe:
                    break
                probe = parent
            self._repo_roots[folder] = root if root is not None else self._walk_top
        return self._repo_roots[folder]

    _walk_top: str | None = None

    def _gitignore(self, folder: str):
        if folder not in self._gitignores:
            spec = None
            path = os.path.join(folder, ".gitignore")
            if os.path.isfile(path):
                import pathspec   # a dependency of dslc: git's own matching rules
                with open(path, encoding="utf-8", errors="replace") as fh:
                    spec = pathspec.GitIgnoreSpec.from_lines(fh.read().splitlines())
            self._gitignores[folder] = spec
        return self._gitignores[folder]

    # ---------------------------------------------------------------- the walk
    def accept(self, path: str, is_dir: bool) -> bool:
        """For :func:`dslc.pipeline.collect_paths`: whether to walk into or list ``path``."""
        if self.excluded(path) or self.ignored_by_git(path, is_dir):
            return False
        return is_dir or self.included(path)

    def collect(self, args: list[str]) -> list[tuple[str, str | None]]:
        """The ``(path, fault)`` entries to check for the paths given (a folder
        with nothing to check contributes nothing)."""
        from dslc.pipeline import collect_paths

        out: list[tuple[str, str | None]] = []
        for arg in args:
            if arg == "-":
                out.append((arg, None))
            elif os.path.isdir(arg):
                if self.force_exclude and self.excluded_with_parents(arg):
                    continue
                self._walk_top = os.path.abspath(arg)
                self._repo_roots.clear()
                out.extend(e for e in collect_paths([arg], self.accept) if e != (arg, None))
            elif not (self.force_exclude and (self.excluded_with_parents(arg) or self.ignored_by_git(arg, False))):
                out.append((arg, None))
        return out


__all__ = ["DEFAULT_EXCLUDE", "Discovery"]
