"""dslc: a compiler and checker for a small language of differential-privacy mechanisms."""

__version__ = "0.1.0"
