"""The codes of the project configuration (docs/cli.md, "Configuration")."""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E190", "unknown-config-key", "A key of `[tool.dslc]` or `dslc.toml` that dslc does not know.", """
A misspelt key would otherwise be ignored, and the check would not do what
the configuration says (a misspelt `exclude` checks what was meant to be
left out).  The message points at the key's line and suggests the closest
key; docs/cli.md lists every key.
""")
register("E191", "invalid-config-value", "A configuration value of the wrong type or out of range.", """
`timeout` is a positive number of seconds, `max-d` an exact non-negative
number (`1`, `"3/2"`, `0.75`), `include`/`exclude`/`extend-exclude` lists of
glob patterns, `respect-gitignore`/`force-exclude` true or false,
`output-format` and `color` one of the names of the flags.
""")
register("E192", "invalid-config-file", "The configuration file cannot be read or is not TOML.", """
The message gives the line and column where the TOML parser stopped.
""")
