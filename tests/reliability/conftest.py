"""The reliability campaigns' fixtures: `backend`, the store a campaign runs against (tests/reliability/backends.py)."""

from tests.reliability.backends import backend  # noqa: F401 - a fixture for the campaigns
