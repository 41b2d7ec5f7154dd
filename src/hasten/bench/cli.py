"""``hasten bench``: the command's parser and its entry point.

This module imports little, so that ``hasten`` starts fast; the work is imported on ``run``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence

from .._arguments import add_arguments, from_arguments
from .options import BenchOptions

__all__ = ["add_parser", "main", "run"]

DESCRIPTION = """\
Measure an app under load: serve it in a subprocess on a free 127.0.0.1 port, wait until it
answers, warm it up, drive load for --duration over --connections, stop it, and print req/s,
latency percentiles, errors, the server's CPU seconds per 10k requests and its peak RSS
(its whole process tree). The load generator is wrk when installed, else a built-in client;
the report says when the client rather than the server was the bottleneck."""

EPILOG = """\
targets:
  MODULE:APP[@SERVER[/INTERFACE]]   served afresh for each round, e.g.
                                    benchmarks.apps.hasten_app:app@granian/asgi
  http://HOST:PORT[/PATH]           a server already running (CPU and RSS only with --pid)
  LABEL=TARGET                      names the target in reports: raw=benchmarks.apps.raw_rsgi:app
  SERVER is granian or uvicorn, INTERFACE rsgi or asgi (default: --server, --interface).

requests (--request, repeatable; split like a shell line):
  '[METHOD] PATH [weight=N] [body=TEXT | body=@FILE] [header=NAME:VALUE]...'
  {A..B} in the path, query or body is a whole number drawn from A to B for each request:
    --request 'GET /items/{1..1000}' --request 'GET /search?page={1..50}'
    --request 'POST /orders body=@order.json weight=2 header=content-type:application/json'
  --scenario FILE.toml holds the same as [[request]] tables:
    [[request]]
    method = "POST"
    path = "/orders"
    weight = 2
    headers = { content-type = "application/json" }
    body = '{"id": {1..100}}'      # or body_file = "order.json", relative to the TOML file

examples:
  hasten bench examples.hello:app --path /hello --duration 5
  hasten bench --compare benchmarks.apps.hasten_app:app benchmarks.apps.raw_rsgi:app \\
      --path /hello --rounds 3 --json out.json --html report.html
  hasten bench http://127.0.0.1:8000/hello --pid 12345
  hasten bench pkg.main:app --baseline base.json --max-regression 5%

figures: medians of the rounds. errors are connect, read, write and timeout failures. non-2xx:
  the built-in client counts every status outside 2xx; wrk counts statuses >= 400 (counting
  each status would need a Lua response() hook, which costs wrk about 15% of its speed).
  CPU s/10k and RSS cover the server's whole process tree (parent and workers).

exit codes: 0 done, 1 a server or the load generator failed, 2 usage error,
3 a regression beyond --max-regression against --baseline, 130 interrupted."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``bench`` command, its options derived from BenchOptions."""
    parser = subparsers.add_parser(
        "bench",
        help="measure an app under load",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser, BenchOptions)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``hasten bench`` with parsed ``args``; return the exit code."""
    if importlib.util.find_spec("psutil") is None:
        return _fail("hasten bench needs psutil: pip install 'hasten[bench]'", 2)
    from .baseline import BaselineError
    from .options import OptionsError
    from .scenario import ScenarioError
    from .server import ServerError
    from .session import bench
    from .target import TargetError
    from .wrk import LoadError

    try:
        return bench(from_arguments(BenchOptions, args))
    except (OptionsError, ScenarioError, TargetError, BaselineError) as exc:
        return _fail(str(exc), 2)
    except (ServerError, LoadError, OSError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hasten.bench ARGS``: the same as ``hasten bench ARGS``."""
    parser = argparse.ArgumentParser(prog="hasten")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    return run(args)


def _fail(message: str, code: int) -> int:
    print(f"hasten bench: error: {message}", file=sys.stderr)
    return code
