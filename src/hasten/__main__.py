"""``python -m hasten``: the ``hasten`` command."""

from hasten._cli.main import main

# The guard matters: worker processes started with "spawn" import this module again.
if __name__ == "__main__":
    raise SystemExit(main())
