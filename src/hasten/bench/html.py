"""The HTML report: one self-contained file, inline CSS and SVG, no script and no asset."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

from .measurement import curve_key
from .report import notes, table_cells
from .stats import PERCENTILES

__all__ = ["render_html"]

_COLORS = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
_TICKS = (50.0, 90.0, 99.0, 99.9, 99.99)
_WIDTH, _HEIGHT = 900, 420
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 30, 20, 50

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


def render_html(document: dict[str, Any]) -> str:
    """The report for a results document, as one HTML page."""
    targets: list[dict[str, Any]] = document["targets"]
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8"><title>hasten bench</title>',
            f"<style>{_CSS}</style></head><body>",
            "<h1>hasten bench</h1>",
            *_meta(document),
            "<h2>Throughput: median requests per second (higher is better)</h2>",
            _bars(targets, "rps", "req/s", "{:,.0f}"),
            "<h2>Latency by percentile: median of the rounds, ms (lower is better)</h2>",
            _legend(targets),
            _curves(targets),
            "<h2>Server CPU seconds per 10,000 requests (lower is better)</h2>",
            _bars(targets, "cpu_s_per_10k", "CPU s", "{:.2f}"),
            "<h2>Medians</h2>",
            _table(targets),
            *_notes(document),
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
        f"{settings['connections']} connections · {settings['duration']:g} s per round · "
        f"{rounds} round{'s' if rounds > 1 else ''}",
        f"scenario: {document['scenario']}",
        software,
    ]
    return [f'<p class="meta">{escape(line)}</p>' for line in lines]


def _table(targets: Sequence[dict[str, Any]]) -> str:
    header, *rows = table_cells(targets)
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _notes(document: dict[str, Any]) -> list[str]:
    found = notes(document)
    if not found:
        return []
    items = "".join(f"<li>{escape(note.lstrip('!- '))}</li>" for note in found)
    return [f'<ul class="notes">{items}</ul>']


def _bars(targets: Sequence[dict[str, Any]], metric: str, unit: str, shown: str) -> str:
    row, label_width, value_width = 36, 170, 190
    height = row * len(targets) + 10
    values = [target["median"][metric] for target in targets]
    best = max((value or 0 for value in values), default=0) or 1
    span = _WIDTH - label_width - value_width
    parts = [_svg_open(_WIDTH, height, f"{unit} of each target")]
    for index, (target, value) in enumerate(zip(targets, values, strict=True)):
        ratio = target["ratio"].get(metric)
        y = index * row + 5
        width = max(1.0, span * (value or 0) / best)
        text = "no figure" if value is None else f"{shown.format(value)} {unit}"
        if ratio is not None and len(targets) > 1:
            text += f"  (x{ratio:.2f})"
        parts += [
            f'<text x="{label_width - 10}" y="{y + 19}" text-anchor="end">'
            f"{escape(target['label'])}</text>",
            f'<rect x="{label_width}" y="{y}" width="{width:.1f}" height="26" rx="3" '
            f'fill="{_COLORS[index % len(_COLORS)]}"/>',
            f'<text x="{label_width + width + 8:.1f}" y="{y + 19}">{escape(text)}</text>',
        ]
    return "\n".join([*parts, "</svg>"])


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
