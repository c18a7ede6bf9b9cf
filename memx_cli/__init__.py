"""memx: git-native long-term memory for coding agents and developers."""

__version__ = "0.1.0"
