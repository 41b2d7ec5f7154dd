"""Apps that ``hasten run`` serves in the lifecycle tests (tests/test_run.py)."""
