"""``hasten bench``: measure an app under load.

The package has one module per noun: ``options`` (the options and their parser), ``targets``
(and the servers that serve them), ``load`` (scenarios, wrk and the built-in client),
``measurement`` (what a round measures, and the statistics over rounds), ``reports`` (JSON,
text, HTML, baseline) and ``command`` (one invocation). Neither the framework nor ``hasten run``
imports any of them: ``main`` imports them when it runs.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hasten bench ARGV`` (default: ``sys.argv[1:]``); return the exit code."""
    from hasten.bench.options import build_parser

    # --help and usage errors need no extra: the parser imports the standard library alone.
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if importlib.util.find_spec("psutil") is None:
        message = "hasten bench needs psutil: pip install 'hasten[bench]'"
        print(f"hasten bench: error: {message}", file=sys.stderr)
        return 2
    from hasten.bench.command import run

    return run(args)
