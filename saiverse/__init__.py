"""SAIVerse: a city of AI personas who remember (README.md)."""

__version__ = "0.3.0"
"""The app version: recorded in every backup's manifest."""
