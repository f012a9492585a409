"""Adapters that let swagkit verify outside libraries (test-only dependencies ``rolling`` and ``river``)."""
