"""The reliability campaigns' fixtures: `backend`, the store a campaign runs against (tests/support/backends.py)."""

from tests.support.backends import backend  # noqa: F401 - a fixture for the campaigns
