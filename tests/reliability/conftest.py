"""The reliability campaigns' fixtures: `store`, the store a campaign runs against (tests/support/backends.py),
and `city`, a PostgreSQL city with worker subprocesses (tests/support/worker_city.py).

`store` is not named `backend`: that name is tests/conftest.py's (the store `make_manager` opens), and a
second fixture of the name here ran every `make_manager` test of this folder on PostgreSQL as well."""

from tests.support.backends import store  # noqa: F401 - a fixture for the campaigns
from tests.support.worker_city import city  # noqa: F401 - a fixture for the pulse-worker tests
