"""hasten's version, at the bottom of the layers: the command line and tracing name it too."""

__version__ = "0.6.0"
