"""The fixtures of tests/bench, for its real-server tests here: the app served once per module
(``served``), a run's servers found by their marker (``marked``), the repository as the working
directory (``in_repo``, for every test)."""

from tests.bench.conftest import in_repo, marked, served

__all__ = ["in_repo", "marked", "served"]
