"""Reports: the results document (what ``--json`` writes), the text and HTML reports rendered
from it, and the flame graph of a profile (the gate, ``--against`` and ``--baseline``, is
verdict.py's).

The HTML report and the flame graph are self-contained files: inline CSS and SVG, no script and
no asset.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import math
import os
import platform
import re
import textwrap
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from hasten.bench.load import LoadGenerator, find_wrk, wrk_version
from hasten.bench.measurement import (
    CLIENT_BOUND,
    PERCENTILES,
    Profile,
    TargetResult,
    curve_key,
    ratios,
)
from hasten.bench.targets import AppTarget, UrlTarget

__all__ = [
    "SCHEMA",
    "build_document",
    "format_latency",
    "render_flamegraph",
    "render_html",
    "render_text",
    "write_json",
]

SCHEMA = "hasten-bench/1"
_PACKAGES = ("hasten", "granian", "uvicorn", "psutil")
_COLORS = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
_TICKS = (50.0, 90.0, 99.0, 99.9, 99.99)
_WIDTH, _HEIGHT = 900, 420
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 30, 20, 50
# The flame graph: its width, a row's height, a character's width, and the narrowest box drawn
# (narrower ones, and all they call, are left out: the file stays small).
_FLAME_WIDTH, _FLAME_ROW, _FLAME_CHAR, _FLAME_LEAST = 1200, 17, 7, 0.5
# Characters that XML forbids. py-spy --nonblocking reads a running process's memory: a frame
# read while it changed can come out as bytes of anything.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #111827;
       margin: 2rem auto; max-width: 1120px; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #e5e7eb; }
.meta { color: #4b5563; margin: .2rem 0; }
svg { display: block; }
svg text { font: 13px system-ui, sans-serif; fill: #374151; }
svg .axis { stroke: #9ca3af; }
svg .grid { stroke: #e5e7eb; }
.legend span { margin-right: 1.2rem; white-space: nowrap; }
.legend i { display: inline-block; width: 14px; height: 4px; margin: 0 .4rem 3px 0; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .5rem; text-align: right; border-bottom: 1px solid #e5e7eb;
         white-space: nowrap; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
th { background: #f9fafb; font-weight: 600; }
.notes { color: #92400e; }
"""

_PROFILES_HOW = (
    "py-spy; open the flame graph (SVG) in a browser, the speedscope file at speedscope.app"
)

Row = dict[str, Any]
Format = Callable[[Any], str]


# The results document.
def build_document(
    *,
    settings: dict[str, Any],
    generator: LoadGenerator,
    scenario: str,
    results: Sequence[TargetResult],
    started: datetime.datetime,
) -> dict[str, Any]:
    """Everything a run measured, as JSON values."""
    relative = ratios(results)
    return {
        "schema": SCHEMA,
        "date": started.isoformat(timespec="seconds"),
        "settings": settings,
        "scenario": scenario,
        "loadgen": {"name": generator.name, "description": generator.describe()},
        "versions": _versions(),
        "machine": _machine(),
        "targets": [
            _target(result, ratio) for result, ratio in zip(results, relative, strict=True)
        ],
    }


def write_json(document: dict[str, Any], path: Path) -> None:
    """Write ``document`` to ``path``, indented."""
    path.write_text(json.dumps(document, indent=2) + "\n")


def _versions() -> dict[str, str | None]:
    """Versions of Python, the servers, and wrk (None: not installed)."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for package in _PACKAGES:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    executable = find_wrk()
    found["wrk"] = None if executable is None else wrk_version(executable)
    return found


def _machine() -> dict[str, Any]:
    """The cores, CPU model and operating system of this machine."""
    return {
        "cores": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
    }


def _target(result: TargetResult, ratio: dict[str, float | None]) -> dict[str, Any]:
    target = result.target
    described: dict[str, Any]
    if isinstance(target, AppTarget):
        described = {"kind": "app"} | asdict(target)
    else:
        described = {"kind": "url"} | _url(target)
    rounds = [
        {
            "round": measurement.round,
            **measurement.metrics(),
            "statuses": measurement.load.statuses,
            "profile": None if measurement.profile is None else _profile(measurement.profile),
        }
        for measurement in result.rounds
    ]
    return described | {"rounds": rounds, "median": result.median(), "ratio": ratio}


def _profile(profile: Profile) -> dict[str, str]:
    return {"flamegraph": str(profile.flamegraph), "speedscope": str(profile.speedscope)}


def _url(target: UrlTarget) -> dict[str, Any]:
    return {
        "label": target.label,
        "url": f"http://{target.host}:{target.port}{target.path}",
        "pid": target.pid,
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# The text report.
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
    ("requests", "median", "requests", _count),
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
    parts = [_header(document), _text_table(_table_cells(document))]
    if document["settings"]["rounds"] > 1:
        parts.append(_rounds(targets))
    profiles = _profiles(targets)
    if profiles:
        lines = [
            f"  {label}: {flamegraph}  {speedscope}" for label, flamegraph, speedscope in profiles
        ]
        parts.append("\n".join([f"profiles ({_PROFILES_HOW}):", *lines]))
    found = _notes(document)
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
        f"{_amount(settings)}{warmup}",
        f"{rounds} round{'s' if rounds > 1 else ''} (median shown)" if rounds > 1 else "1 round",
    ]
    return f"hasten bench: {' | '.join(load)}\nscenario: {document['scenario']}"


def _amount(settings: dict[str, Any]) -> str:
    """How much load a round sends: seconds, or a count of requests (-n)."""
    count = settings["count"]
    return f"{settings['duration']:g} s" if count is None else f"{count:,} requests"


def _table_cells(document: dict[str, Any]) -> list[list[str]]:
    """The table of medians as text cells, the header first; ratio columns when comparing, the
    requests answered with -n."""
    targets: list[Row] = document["targets"]
    counted = document["settings"]["count"] is not None
    columns = [
        column
        for column in _COLUMNS
        if (column[1] != "ratio" or len(targets) > 1) and (column[2] != "requests" or counted)
    ]
    header = [name for name, *_ in columns]
    return [header] + [
        [show(_value(target, section, key)) for _, section, key, show in columns]
        for target in targets
    ]


def _text_table(rows: list[list[str]]) -> str:
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


def _profiles(targets: Sequence[Row]) -> list[tuple[str, str, str]]:
    """Each round's profile: ``label, round N``, its flame graph and its speedscope file."""
    return [
        (f"{target['label']}, round {item['round']}", profile["flamegraph"], profile["speedscope"])
        for target in targets
        for item in target["rounds"]
        if (profile := item["profile"]) is not None
    ]


def _notes(document: dict[str, Any]) -> list[str]:
    """Warnings: a client-bound or saturated run, errors, missing figures, and profiling."""
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
    if _profiles(document["targets"]):
        notes.append(
            "- profiled: py-spy sampled the servers while they were measured, taking CPU time "
            "on the same cores: the figures are lower than without --profile."
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


# The HTML report.
def render_html(document: dict[str, Any]) -> str:
    """The report for a results document, as one HTML page."""
    targets: list[dict[str, Any]] = document["targets"]
    each = "; a dot for each round" if document["settings"]["rounds"] > 1 else ""
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8"><title>hasten bench</title>',
            f"<style>{_CSS}</style></head><body>",
            "<h1>hasten bench</h1>",
            *_meta(document),
            f"<h2>Throughput: median requests per second{each} (higher is better)</h2>",
            _bars(targets, "rps", "req/s", _count),
            f"<h2>p99 latency: median of the rounds, ms{each} (lower is better)</h2>",
            _bars(targets, "p99_ms", "ms", format_latency),
            "<h2>Latency by percentile: median of the rounds, ms (lower is better)</h2>",
            _legend(targets),
            _curves(targets),
            f"<h2>Server CPU seconds per 10,000 requests{each} (lower is better)</h2>",
            _bars(targets, "cpu_s_per_10k", "CPU s", _fixed),
            "<h2>Medians</h2>",
            _html_table(_table_cells(document)),
            *_html_rounds(targets),
            *_html_profiles(targets),
            *_html_notes(document),
            "</body></html>",
        ]
    )


def _meta(document: dict[str, Any]) -> list[str]:
    machine, versions, settings = document["machine"], document["versions"], document["settings"]
    software = ", ".join(f"{name} {version}" for name, version in versions.items() if version)
    rounds = settings["rounds"]
    lines = [
        f"{document['date']} · {machine['cores']} cores, {machine['cpu_model']}",
        f"{document['loadgen']['description']} · {settings['mode']}, "
        f"{settings['connections']} connections · {_amount(settings)} per round · "
        f"{rounds} round{'s' if rounds > 1 else ''}",
        f"scenario: {document['scenario']}",
        software,
    ]
    return [f'<p class="meta">{escape(line)}</p>' for line in lines]


def _html_table(cells: list[list[str]]) -> str:
    header, *rows = cells
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_profiles(targets: Sequence[Row]) -> list[str]:
    profiles = _profiles(targets)
    if not profiles:
        return []
    items = "".join(
        f"<li>{escape(label)}: "
        + ", ".join(f"<code>{escape(path)}</code>" for path in paths)
        + "</li>"
        for label, *paths in profiles
    )
    return [f"<h2>Profiles</h2><p>{escape(_PROFILES_HOW)}</p><ul>{items}</ul>"]


def _html_rounds(targets: Sequence[Row]) -> list[str]:
    """Each round's req/s and p99 of each target, when there are several rounds."""
    rounds = max(len(target["rounds"]) for target in targets)
    if rounds < 2:
        return []
    numbers = [f"#{number}" for number in range(1, rounds + 1)]
    cells = [["target", *(f"req/s {n}" for n in numbers), *(f"p99 ms {n}" for n in numbers)]]
    for target in targets:
        rps = [_count(item["rps"]) for item in target["rounds"]]
        p99 = [format_latency(item["p99_ms"]) for item in target["rounds"]]
        cells.append([target["label"], *rps, *p99])
    return ["<h2>Each round</h2>", _html_table(cells)]


def _html_notes(document: dict[str, Any]) -> list[str]:
    found = _notes(document)
    if not found:
        return []
    items = "".join(f"<li>{escape(note.lstrip('!- '))}</li>" for note in found)
    return [f'<ul class="notes">{items}</ul>']


def _bars(targets: Sequence[Row], metric: str, unit: str, show: Format) -> str:
    """A bar of each target's median; with several rounds, a dot for each round's figure on it
    and a line from the lowest to the highest: how far the rounds spread."""
    row, label_width, value_width = 36, 170, 190
    height = row * len(targets) + 10
    spread = [[item[metric] for item in target["rounds"]] for target in targets]
    # The scale's end: the highest figure of any round (no median is higher).
    best = max((value or 0 for values in spread for value in values), default=0) or 1
    span = _WIDTH - label_width - value_width
    parts = [_svg_open(_WIDTH, height, f"{unit} of each target")]
    for index, (target, rounds) in enumerate(zip(targets, spread, strict=True)):
        value, ratio = target["median"][metric], target["ratio"].get(metric)
        y = index * row + 5
        width = max(1.0, span * (value or 0) / best)
        text = "no figure" if value is None else f"{show(value)} {unit}"
        if ratio is not None and len(targets) > 1:
            text += f"  (x{ratio:.2f})"
        dots = [(item, label_width + span * item / best) for item in rounds if item is not None]
        parts += [
            f'<text x="{label_width - 10}" y="{y + 19}" text-anchor="end">'
            f"{escape(target['label'])}</text>",
            f'<rect x="{label_width}" y="{y}" width="{width:.1f}" height="26" rx="3" '
            f'fill="{_COLORS[index % len(_COLORS)]}"/>',
            *(_dots(dots, y + 13, unit, show) if len(rounds) > 1 else []),
            f'<text x="{max([label_width + width, *(x for _, x in dots)]) + 8:.1f}" '
            f'y="{y + 19}">{escape(text)}</text>',
        ]
    return "\n".join([*parts, "</svg>"])


def _dots(dots: Sequence[tuple[float, float]], y: int, unit: str, show: Format) -> list[str]:
    """The rounds' figures at their places: a line from the lowest to the highest, a dot each."""
    if not dots:
        return []
    low, high = min(x for _, x in dots), max(x for _, x in dots)
    parts = [f'<line x1="{low:.1f}" y1="{y}" x2="{high:.1f}" y2="{y}" stroke="#111827"/>']
    for number, (value, x) in enumerate(dots, start=1):
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y}" r="4" fill="#fff" stroke="#111827">'
            f"<title>round {number}: {escape(show(value))} {unit}</title></circle>"
        )
    return parts


def _curves(targets: Sequence[dict[str, Any]]) -> str:
    top = max(
        (target["median"][curve_key(p)] or 0 for target in targets for p in PERCENTILES),
        default=0,
    )
    step, y_max = _nice_axis(top)
    parts = [_svg_open(_WIDTH, _HEIGHT, "Latency in ms at each percentile, one line per target")]
    parts += _grid(step, y_max)
    for index, target in enumerate(targets):
        points = [
            (_x(p), _y(target["median"][curve_key(p)], y_max))
            for p in PERCENTILES
            if target["median"][curve_key(p)] is not None
        ]
        color = _COLORS[index % len(_COLORS)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.5"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in points]
    return "\n".join([*parts, "</svg>"])


def _grid(step: float, y_max: float) -> list[str]:
    bottom, right = _HEIGHT - _BOTTOM, _WIDTH - _RIGHT
    parts = []
    for index in range(round(y_max / step) + 1):
        value = index * step
        y = _y(value, y_max)
        parts += [
            f'<line class="grid" x1="{_LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>',
            f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>',
        ]
    for p in _TICKS:
        x = _x(p)
        parts += [
            f'<line class="grid" x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{bottom}"/>',
            f'<text x="{x:.1f}" y="{bottom + 20}" text-anchor="middle">p{p:g}</text>',
        ]
    parts += [
        f'<line class="axis" x1="{_LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}"/>',
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}"/>',
        f'<text x="{(_LEFT + right) / 2}" y="{_HEIGHT - 8}" text-anchor="middle">percentile</text>',
        f'<text x="16" y="{(_TOP + bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(_TOP + bottom) / 2})">latency (ms)</text>',
    ]
    return parts


def _legend(targets: Sequence[dict[str, Any]]) -> str:
    items = "".join(
        f'<span><i style="background:{_COLORS[index % len(_COLORS)]}"></i>'
        f"{escape(target['label'])}</span>"
        for index, target in enumerate(targets)
    )
    return f'<p class="legend">{items}</p>'


def _svg_open(width: int, height: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{escape(title)}</title>'
    )


def _x(p: float) -> float:
    """Percentiles on the usual log scale: each added nine takes the same width."""
    low, high = -math.log10(1 - _TICKS[0] / 100), -math.log10(1 - _TICKS[-1] / 100)
    share = (-math.log10(1 - p / 100) - low) / (high - low)
    return _LEFT + share * (_WIDTH - _LEFT - _RIGHT)


def _y(ms: float, y_max: float) -> float:
    return _HEIGHT - _BOTTOM - ms / y_max * (_HEIGHT - _TOP - _BOTTOM)


def _nice_axis(top: float) -> tuple[float, float]:
    """A round tick step (1, 2 or 5 times a power of ten) and the axis maximum above ``top``."""
    if top <= 0:
        return 1.0, 1.0
    rough = top / 5
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 5, 10) if power * factor >= rough)
    return step, step * math.ceil(top / step)


# The flame graph.
@dataclass(slots=True)
class _Box:
    """A function of the flame graph: the samples in it, and the functions it called."""

    label: str
    title: str
    weight: float = 0.0
    callees: dict[str, _Box] = field(default_factory=dict)

    def callee(self, label: str, title: str) -> _Box:
        """The box of ``title`` called from this one, made on first use."""
        box = self.callees.get(title)
        if box is None:
            box = self.callees[title] = _Box(label, title)
        return box


def render_flamegraph(speedscope: dict[str, Any], title: str) -> str:
    """A flame graph of a speedscope file's samples, as one SVG: each box is a function, as wide
    as its share of the samples and above the function that called it; its tooltip gives the
    file, the line and the share. Each thread of each process stands on a box of its own."""
    everything = _flame_tree(speedscope)
    placed: list[tuple[_Box, float, int]] = []
    _place(everything, 0.0, 0, _FLAME_WIDTH / (everything.weight or 1), placed)
    height = (max((depth for _, _, depth in placed), default=0) + 1) * _FLAME_ROW + 40
    heading = f"{title}: {everything.weight:.2f} s of samples (py-spy)"
    parts = [
        _svg_open(_FLAME_WIDTH, height, heading),
        f'<text x="4" y="18" style="font: bold 14px sans-serif">{escape(heading)}</text>',
    ]
    for box, x, depth in placed:
        share = box.weight / everything.weight
        parts.append(_flame_box(box, share, x, height - (depth + 1) * _FLAME_ROW))
    return "\n".join([*parts, "</svg>"]) + "\n"


def _flame_tree(speedscope: dict[str, Any]) -> _Box:
    """Every sample of every thread, merged into one tree of calls under a box "all"."""
    frames = speedscope["shared"]["frames"]
    everything = _Box("all", "all")
    for profile in speedscope["profiles"]:
        thread = everything.callee(profile["name"], profile["name"])
        for stack, weight in zip(profile["samples"], profile["weights"], strict=True):
            everything.weight += weight
            box = thread
            box.weight += weight
            for index in stack:  # from the outermost call to the innermost
                box = box.callee(*_frame_names(frames[index]))
                box.weight += weight
    return everything


def _frame_names(frame: dict[str, Any]) -> tuple[str, str]:
    """A frame's label, ``name (file.py:line)``, and its title, with the file's whole path.
    py-spy's frames of a process have no file: their name says which process."""
    name, file, line = frame["name"], frame["file"], frame["line"]
    if not file:
        return name, name
    return f"{name} ({Path(file).name}:{line})", f"{name} ({file}:{line})"


def _flame_box(box: _Box, share: float, x: float, y: int) -> str:
    width = share * _FLAME_WIDTH
    fits = int((width - 6) / _FLAME_CHAR)
    text = box.label if len(box.label) <= fits else box.label[: fits - 2] + ".."
    label = (
        f'<text x="{x + 3:.1f}" y="{y + 12}" style="font: 12px monospace">{_xml(text)}</text>'
        if fits >= 3
        else ""
    )
    return (
        f"<g><title>{_xml(box.title)}: {share:.1%} of the samples</title>"
        f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{_FLAME_ROW - 1}" '
        f'fill="{_warm(box.title)}"/>{label}</g>'
    )


def _place(
    box: _Box, x: float, depth: int, scale: float, placed: list[tuple[_Box, float, int]]
) -> None:
    """Put ``box`` at ``x`` and ``depth``, and its callees above it, in order of their labels."""
    if box.weight * scale < _FLAME_LEAST:
        return
    placed.append((box, x, depth))
    for callee in sorted(box.callees.values(), key=lambda each: each.label):
        _place(callee, x, depth + 1, scale, placed)
        x += callee.weight * scale


def _xml(text: str) -> str:
    return escape(_NOT_XML.sub("\ufffd", text))


def _warm(key: str) -> str:
    """A warm color of its own for each function, the same in every flame graph."""
    code = zlib.crc32(key.encode())
    return f"rgb({205 + code % 50},{(code >> 8) % 230},{(code >> 16) % 55})"
