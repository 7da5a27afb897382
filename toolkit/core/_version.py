"""The package version, in a module of its own: the server modules read it without importing the package API."""

__version__ = "0.1.0"
