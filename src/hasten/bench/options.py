"""``hasten bench``'s options: one dataclass (each field is one argument) and the parser
derived from it. It imports nothing beyond the standard library and hasten's argument helpers,
so that ``hasten bench --help`` and its usage errors need no extra (psutil is the command's).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from hasten._cli.arguments import add_arguments
from hasten._cli.servers import Interface, ServerName

__all__ = [
    "DESCRIPTION",
    "EPILOG",
    "BenchOptions",
    "LoadgenName",
    "Mode",
    "OptionsError",
    "build_parser",
    "percent",
]

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

requests (--request, repeatable):
  '[METHOD] PATH [weight=N] [body=TEXT | body=@FILE] [header=NAME:VALUE]...'
  The spec is one word of your shell (quote it whole), then split again as a shell line: a
  value holding a space needs quotes of its own inside it:
    --request 'GET /me header="authorization:Bearer abc"'
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
  hasten bench examples.hello:app --path /hello -n 10000
  hasten bench examples.hello:app --path /items/{1..100} --profile --json out/now.json
  hasten bench --compare benchmarks.apps.hasten_app:app benchmarks.apps.raw_rsgi:app \\
      --path /hello --rounds 3 --json out.json --html report.html
  hasten bench http://127.0.0.1:8000/hello --pid 12345
  hasten bench --compare main=app.main:app pr=app.main:app --root main=../main \\
      --against main --path /items/1 --rounds 6     # a CI gate: exit 3 on a regression
  hasten bench pkg.main:app --rounds 5 --baseline base.json

figures: medians of the rounds. errors are connect, read, write and timeout failures. non-2xx:
  the built-in client counts every status outside 2xx; wrk counts statuses >= 400 (counting
  each status would need a Lua response() hook, which costs wrk about 15% of its speed).
  CPU s/10k and RSS cover the server's whole process tree (parent and workers).

profiles (--profile): py-spy samples each server's process tree while it is measured; a flame
  graph (SVG) and a speedscope file per target and round go beside --json or --html, else here,
  named after the report: out-profile-LABEL-round1.svg. py-spy needs to read the server's memory
  (ptrace): as root, or with CAP_SYS_PTRACE; where it cannot, the run goes on without profiles.

the gate (--against LABEL, --baseline FILE): each target's req/s and p99 against its
  reference, as a change with its 99% confidence interval from the rounds' spread; a
  regression is a change worse than --max-regression over the whole interval. --against
  measures both in alternating rounds of one run (A B, then B A): what a CI job should use.
  --baseline compares with an earlier run's rounds, of the same scenario only.

exit codes: 0 done, 1 a server or the load generator failed, 2 usage error,
3 a regression beyond --max-regression, 130 interrupted."""


Mode = Literal["concurrent", "sequential"]
LoadgenName = Literal["auto", "wrk", "builtin"]


# Options.
class OptionsError(ValueError):
    """Options that contradict each other, or ask for what cannot be done."""


def percent(text: str) -> float:
    """``5%`` or ``5`` -> 5.0."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage such as 5%") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _help(text: str, **extra: Any) -> dict[str, Any]:
    return {"help": text, **extra}


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchOptions:
    """How ``hasten bench`` measures. Each field is one command-line argument."""

    target: str | None = field(
        default=None,
        metadata=_help(
            "The target: MODULE:APP[@SERVER[/INTERFACE]], or a URL.",
            positional=True,
            metavar="TARGET",
        ),
    )
    compare: tuple[str, ...] = field(
        default=(),
        metadata=_help(
            "Measure several targets in one run, in alternating rounds.",
            nargs="+",
            metavar="TARGET",
        ),
    )
    path: str | None = field(
        default=None,
        metadata=_help("Send GET PATH (default: the URL's path, or /). Ranges allowed: {1..100}."),
    )
    request: tuple[str, ...] = field(
        default=(),
        metadata=_help(
            "A request of the scenario, repeatable: '[METHOD] PATH [weight=N] [body=TEXT|@FILE] "
            "[header=NAME:VALUE]...', quoted whole; a value with a space quoted again inside "
            "it: 'GET /me header=\"authorization:Bearer abc\"'.",
            metavar="SPEC",
        ),
    )
    scenario: Path | None = field(
        default=None, metadata=_help("A TOML file of [[request]] tables.", metavar="FILE")
    )
    server: ServerName = field(
        default="granian", metadata=_help("Server for targets that do not name one.")
    )
    interface: Interface | None = field(
        default=None,
        metadata=_help("Interface for targets that do not name one (default: the server's own)."),
    )
    workers: int = field(default=1, metadata=_help("Server worker processes.", metavar="N"))
    port: int | None = field(
        default=None,
        metadata=_help(
            "Serve each app target on this port of 127.0.0.1 (default: a free one).",
            metavar="PORT",
        ),
    )
    root: tuple[str, ...] = field(
        default=(),
        metadata=_help(
            "LABEL=DIR: serve the target LABEL from DIR (its working directory, where its "
            "modules are imported from), e.g. a checkout of the main branch; repeatable.",
            metavar="LABEL=DIR",
        ),
    )
    duration: float = field(
        default=10.0, metadata=_help("Seconds of load per round (wrk: whole seconds).", metavar="S")
    )
    count: int | None = field(
        default=None,
        metadata=_help(
            "Send exactly N requests per round, however long they take, instead of --duration "
            "(with the built-in client: wrk cannot count).",
            flag="-n",
            metavar="N",
        ),
    )
    warmup: float = field(
        default=2.0, metadata=_help("Seconds of load before each round, not measured.", metavar="S")
    )
    connections: int = field(
        default=64, metadata=_help("Open connections in concurrent mode.", metavar="N")
    )
    mode: Mode = field(
        default="concurrent",
        metadata=_help("sequential: one connection, one request at a time."),
    )
    loadgen: LoadgenName = field(
        default="auto", metadata=_help("Load generator; auto: wrk when installed, else builtin.")
    )
    threads: int = field(default=1, metadata=_help("wrk threads.", metavar="N"))
    rounds: int | None = field(
        default=None,
        metadata=_help(
            "Rounds per target (default: 6 with --against or --baseline, 3 with --compare, "
            "else 1).",
            metavar="N",
        ),
    )
    pid: int | None = field(
        default=None, metadata=_help("With a URL target: sample this process tree's CPU and RSS.")
    )
    json: Path | None = field(
        default=None, metadata=_help("Write every measurement to this JSON file.", metavar="FILE")
    )
    html: Path | None = field(
        default=None, metadata=_help("Write a self-contained HTML report.", metavar="FILE")
    )
    profile: bool = field(
        default=False,
        metadata=_help(
            "Sample each server with py-spy while it is measured: a flame graph (SVG) and a "
            "speedscope file per target and round, beside --json or --html (else here)."
        ),
    )
    against: str | None = field(
        default=None,
        metadata=_help(
            "With --compare: judge each other target against this one, measured in the same "
            "alternating rounds; exit 3 on a regression.",
            metavar="LABEL",
        ),
    )
    baseline: Path | None = field(
        default=None,
        metadata=_help(
            "Judge each target against its rounds in an earlier --json file of the same "
            "scenario; exit 3 on a regression.",
            metavar="FILE",
        ),
    )
    max_regression: float = field(
        default=5.0,
        metadata=_help(
            "The drop of req/s (or rise of p99) that fails the gate when the whole 99%% "
            "confidence interval of the change is beyond it.",
            metavar="PCT",
            parse=percent,
            shown="5%",
        ),
    )
    ready_timeout: float = field(
        default=30.0, metadata=_help("Seconds to wait for a server to answer.", metavar="S")
    )

    def __post_init__(self) -> None:
        if (self.target is None) == (not self.compare):
            raise OptionsError("give one TARGET, or --compare with several, not both")
        for name in ("workers", "connections", "threads"):
            if getattr(self, name) < 1:
                raise OptionsError(f"--{name} must be at least 1")
        if self.rounds is not None and self.rounds < 1:
            raise OptionsError("--rounds must be at least 1")
        if self.count is not None and self.count < 1:
            raise OptionsError("-n must be at least 1")
        if self.count is not None and self.loadgen == "wrk":
            raise OptionsError("-n needs the built-in client: wrk has no request-count mode")
        if self.duration <= 0 or self.warmup < 0 or self.ready_timeout <= 0:
            raise OptionsError(
                "--duration and --ready-timeout must be positive, --warmup not negative"
            )
        if self.port is not None and not 0 < self.port < 65536:
            raise OptionsError(f"--port must be between 1 and 65535, got {self.port}")
        self._check_gate()

    def _check_gate(self) -> None:
        if self.against is not None and not self.compare:
            raise OptionsError("--against LABEL judges the other targets of --compare")
        if self.gated and self.round_count < 2:
            raise OptionsError(
                "--against and --baseline judge a change by the rounds' spread: "
                "give --rounds 2 or more (6 or more to tell a few percent)"
            )

    @property
    def target_texts(self) -> tuple[str, ...]:
        """The targets as written: the one TARGET, or those of --compare."""
        return self.compare or (self.target or "",)

    @property
    def gated(self) -> bool:
        """Whether a change is judged: against another target, or a baseline."""
        return self.against is not None or self.baseline is not None

    @property
    def round_count(self) -> int:
        """--rounds, or its default: 5 to judge a change, 3 when comparing, else 1."""
        if self.rounds is not None:
            return self.rounds
        if self.gated:
            return 6  # even: as many pairs measured A first as B first
        return 3 if self.compare else 1

    @property
    def connection_count(self) -> int:
        """--connections, or 1 in sequential mode."""
        return 1 if self.mode == "sequential" else self.connections

    def settings(self) -> dict[str, Any]:
        """The options as JSON values, for the ``--json`` file."""
        return {
            name: str(value) if isinstance(value, Path) else value
            for name, value in asdict(self).items()
        } | {"rounds": self.round_count, "connections": self.connection_count}


# The command line.
def build_parser() -> argparse.ArgumentParser:
    """The parser of ``hasten bench``: one argument per BenchOptions field."""
    parser = argparse.ArgumentParser(
        prog="hasten bench",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser, BenchOptions)
    return parser
