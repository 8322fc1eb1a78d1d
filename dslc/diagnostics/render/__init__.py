"""Renderers: they format diagnostics and results, and never analyse."""
