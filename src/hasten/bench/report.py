"""The text report: a header, one row per target (medians), the rounds, and what to beware of."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from .measurement import CLIENT_BOUND

__all__ = ["format_latency", "notes", "render_text", "table_cells"]

Row = dict[str, Any]
Format = Callable[[Any], str]


def format_latency(ms: float | None) -> str:
    """Milliseconds with three significant-ish digits: 0.412, 2.81, 14.2, 180."""
    if ms is None:
        return "-"
    if ms < 1:
        return f"{ms:.3f}"
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _times(value: float | None) -> str:
    return "-" if value is None else f"x{value:.2f}"


def _fixed(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _text(value: Any) -> str:
    return str(value)


# (header, where the value is, its format): "median" and "ratio" are the target's sections.
_COLUMNS: list[tuple[str, str, str, Format]] = [
    ("target", "", "label", _text),
    ("server", "", "how", _text),
    ("req/s", "median", "rps", _count),
    ("ratio", "ratio", "rps", _times),
    ("p50 ms", "median", "p50_ms", format_latency),
    ("p90 ms", "median", "p90_ms", format_latency),
    ("p99 ms", "median", "p99_ms", format_latency),
    ("ratio", "ratio", "p99_ms", _times),
    ("p99.9 ms", "median", "p99.9_ms", format_latency),
    ("max ms", "median", "max_ms", format_latency),
    ("errors", "median", "errors", _count),
    ("non-2xx", "median", "non_2xx", _count),
    ("CPU s/10k", "median", "cpu_s_per_10k", _fixed),
    ("ratio", "ratio", "cpu_s_per_10k", _times),
    ("RSS MB", "median", "peak_rss_mb", _fixed),
]


def render_text(document: dict[str, Any]) -> str:
    """The whole report for a results document."""
    targets: list[Row] = document["targets"]
    parts = [_header(document), _table(targets)]
    if document["settings"]["rounds"] > 1:
        parts.append(_rounds(targets))
    found = notes(document)
    if found:
        parts.append("\n".join(textwrap.fill(note, 100, subsequent_indent="  ") for note in found))
    return "\n\n".join(parts)


def _header(document: dict[str, Any]) -> str:
    settings = document["settings"]
    rounds = settings["rounds"]
    warmup = f" after {settings['warmup']:g} s warm-up" if settings["warmup"] else ""
    load = [
        document["loadgen"]["description"],
        f"{settings['mode']}, {settings['connections']} connection"
        + ("s" if settings["connections"] > 1 else ""),
        f"{settings['duration']:g} s{warmup}",
        f"{rounds} round{'s' if rounds > 1 else ''} (median shown)" if rounds > 1 else "1 round",
    ]
    return f"hasten bench: {' | '.join(load)}\nscenario: {document['scenario']}"


def table_cells(targets: Sequence[Row]) -> list[list[str]]:
    """The table of medians as text cells, the header first; ratio columns when comparing."""
    columns = [column for column in _COLUMNS if column[1] != "ratio" or len(targets) > 1]
    header = [name for name, *_ in columns]
    return [header] + [
        [show(_value(target, section, key)) for _, section, key, show in columns]
        for target in targets
    ]


def _table(targets: Sequence[Row]) -> str:
    rows = table_cells(targets)
    widths = [max(len(row[index]) for row in rows) for index in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if index < 2 else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _value(target: Row, section: str, key: str) -> Any:
    if key == "how":
        return f"{target['server']}/{target['interface']}" if target["kind"] == "app" else "url"
    return target[section][key] if section else target[key]


def _rounds(targets: Sequence[Row]) -> str:
    width = max(len(target["label"]) for target in targets)
    lines = ["req/s by round:"]
    for target in targets:
        values = "  ".join(_count(item["rps"]).rjust(9) for item in target["rounds"])
        lines.append(f"  {target['label'].ljust(width)}  {values}")
    return "\n".join(lines)


def notes(document: dict[str, Any]) -> list[str]:
    """Warnings: a client-bound or saturated run, errors, and missing figures."""
    loadgen = document["loadgen"]["description"]
    cores = document["machine"]["cores"] or 1
    notes: list[str] = []
    saturated = False
    for target in document["targets"]:
        label, median = target["label"], target["median"]
        share = median["client_share"] or 0.0
        if share >= CLIENT_BOUND:
            notes.append(
                f"! client-bound: {loadgen} used {share:.0%} of the CPU it may use on {label}: "
                "the load generator, not the server, was the bottleneck."
            )
        busy = (median["server_cpu_seconds"] or 0.0) + (median["client_cpu_seconds"] or 0.0)
        saturated = saturated or busy >= CLIENT_BOUND * cores * (median["seconds"] or 0.0)
        notes += _failures(label, median, document["loadgen"]["name"])
        if median["cpu_s_per_10k"] is None:
            notes.append(f"- {label}: no CPU or RSS figures (a URL target needs --pid for them).")
    if saturated:
        notes.append(
            f"! the server and the load generator together kept all {cores} cores busy: they "
            "compete for the CPU, so trust the ratios more than the absolute figures."
        )
    return notes


def _failures(label: str, median: Row, loadgen: str) -> list[str]:
    errors, non_2xx = median["errors"] or 0, median["non_2xx"] or 0
    if not errors and not non_2xx:
        return []
    which = "responses with a status >= 400" if loadgen == "wrk" else "non-2xx responses"
    return [
        f"! {label}: {errors:,.0f} errors (connect, read, write, timeout) and "
        f"{non_2xx:,.0f} {which} (medians of the rounds)."
    ]
