"""Apps that ``hasten run`` serves in the lifecycle tests (tests/servers/test_run.py)."""
