"""The options of ``hasten bench``, defined once: each field is one command-line argument
(derived by hasten._arguments)."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..servers import Interface, ServerName

__all__ = ["BenchOptions", "OptionsError", "percent"]

Mode = Literal["concurrent", "sequential"]
LoadgenName = Literal["auto", "wrk", "builtin"]


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
            "[header=NAME:VALUE]...'.",
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
    duration: float = field(
        default=10.0, metadata=_help("Seconds of load per round (wrk: whole seconds).", metavar="S")
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
        metadata=_help("Rounds per target (default: 3 with --compare, else 1).", metavar="N"),
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
    baseline: Path | None = field(
        default=None,
        metadata=_help(
            "Compare with an earlier --json file: exit 3 on a regression.", metavar="FILE"
        ),
    )
    max_regression: float = field(
        default=5.0,
        metadata=_help(
            "Allowed drop of median req/s (and rise of p99) against --baseline.",
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
        if self.duration <= 0 or self.warmup < 0 or self.ready_timeout <= 0:
            raise OptionsError(
                "--duration and --ready-timeout must be positive, --warmup not negative"
            )

    @property
    def target_texts(self) -> tuple[str, ...]:
        """The targets as written: the one TARGET, or those of --compare."""
        return self.compare or (self.target or "",)

    @property
    def round_count(self) -> int:
        """--rounds, or its default: 3 when comparing, else 1."""
        if self.rounds is not None:
            return self.rounds
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
