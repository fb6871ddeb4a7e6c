"""The reliability campaigns' fixtures: `backend`, the store a campaign runs against (tests/support/backends.py),
and `city`, a PostgreSQL city with worker subprocesses (tests/support/worker_city.py)."""

from tests.support.backends import backend  # noqa: F401 - a fixture for the campaigns
from tests.support.worker_city import city  # noqa: F401 - a fixture for the pulse-worker tests
