"""``python -m hasten.bench``: ``hasten bench`` without the ``hasten`` command."""

from hasten.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
