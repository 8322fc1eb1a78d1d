"""The `.dp` language server (`dslc lsp`): diagnostics, hover, symbols and
go-to-definition over stdio, built on the same driver as `dslc check`."""
