"""The results document and its reports, from measurements made up by hand."""

from __future__ import annotations

import dataclasses
import datetime
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from hasten.bench.load import BuiltinGenerator
from hasten.bench.measurement import Profile, TargetResult
from hasten.bench.reports import (
    build_document,
    format_latency,
    render_flamegraph,
    render_html,
    render_text,
)
from tests.bench.conftest import results

SETTINGS: dict[str, Any] = {
    "mode": "concurrent",
    "connections": 64,
    "duration": 2.0,
    "count": None,
    "warmup": 1.0,
    "rounds": 3,
    "profile": False,
}
STARTED = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def document(measured: list[TargetResult] | None = None, **settings: Any) -> dict[str, Any]:
    """The document of ``measured`` (default: fast and slow, three rounds each)."""
    return build_document(
        settings=SETTINGS | settings,
        generator=BuiltinGenerator(),
        scenario="GET /",
        results=results() if measured is None else measured,
        started=STARTED,
    )


def test_text_report() -> None:
    text = render_text(document())
    lines = text.splitlines()
    assert lines[0] == (
        "hasten bench: built-in asyncio client (1 core) | concurrent, 64 connections | "
        "2 s after 1 s warm-up | 3 rounds (median shown)"
    )
    assert re.search(r"fast\s+granian/rsgi\s+2,000\s+x1.00\s+1.00", text)
    assert re.search(r"slow\s+url\s+500\s+x0.25\s+2.00", text)
    assert re.search(r"fast\s+1,000\s+3,000\s+2,000", text)  # req/s by round
    assert "client-bound" in text
    assert "on fast" in text
    assert "slow: 3 errors" in text
    assert "slow: no CPU or RSS figures" in text


def test_html_report_shows_each_rounds_figures_beside_the_median() -> None:
    page = render_html(document())
    # fast: req/s 1,000, 3,000, 2,000 (median 2,000); p99 5.00, 6.00, 4.00 ms (median 5.00)
    for figure in ("1,000 req/s", "3,000 req/s", "2,000 req/s", "5.00 ms", "6.00 ms", "4.00 ms"):
        assert f": {figure}</title></circle>" in page
    assert page.count("<title>round ") == 3 * (2 + 2 + 1)  # req/s, p99, CPU (of fast only)
    assert (
        "<tr><td>fast</td><td>1,000</td><td>3,000</td><td>2,000</td>"
        "<td>5.00</td><td>6.00</td><td>4.00</td></tr>"
    ) in page
    assert "<tr><td>slow</td><td>400</td><td>500</td><td>600</td>" in page
    fast, slow = results()
    fast.rounds, slow.rounds = fast.rounds[:1], slow.rounds[:1]
    one = render_html(document([fast, slow], rounds=1))
    assert "<title>round " not in one
    assert "Each round" not in one


def test_a_count_of_requests_is_in_the_header_and_its_own_column() -> None:
    text = render_text(document(count=4000))
    assert "| 4,000 requests after 1 s warm-up |" in text.splitlines()[0]
    assert text.splitlines()[3].split()[:3] == ["target", "server", "requests"]
    assert re.search(r"fast\s+granian/rsgi\s+4,000\s+2,000", text)
    assert "requests" not in render_text(document()).splitlines()[3]
    assert "4,000 requests per round" in render_html(document(count=4000))


def test_html_report_is_self_contained() -> None:
    page = render_html(document())
    assert page.startswith("<!doctype html>")
    assert page.count("<svg") == 4
    assert page.count("<polyline") == 2
    assert "<script" not in page
    assert "src=" not in page
    assert "href=" not in page
    assert "2026-01-02T03:04:05+00:00" in page
    assert "<td>2,000</td>" in page


def test_profiles_are_listed_with_a_note() -> None:
    fast, slow = results()
    profile = Profile(
        Path("out-profile-fast-round2.speedscope.json"), Path("out-profile-fast-round2.svg")
    )
    fast.rounds[1] = dataclasses.replace(fast.rounds[1], profile=profile)
    profiled = document([fast, slow], profile=True)
    assert profiled["targets"][0]["rounds"][1]["profile"] == {
        "flamegraph": "out-profile-fast-round2.svg",
        "speedscope": "out-profile-fast-round2.speedscope.json",
    }
    assert profiled["targets"][0]["rounds"][0]["profile"] is None
    text = render_text(profiled)
    assert (
        "  fast, round 2: out-profile-fast-round2.svg  out-profile-fast-round2.speedscope.json\n"
        in text
    )
    assert "- profiled: py-spy sampled the servers while they were measured" in text
    page = render_html(profiled)
    assert "<code>out-profile-fast-round2.svg</code>" in page
    assert "profile" not in render_text(document(profile=True))  # asked for, none recorded


def test_format_latency() -> None:
    assert [format_latency(ms) for ms in (None, 0.4123, 2.814, 14.23, 180.4)] == [
        "-",
        "0.412",
        "2.81",
        "14.2",
        "180",
    ]


# The flame graph.
FRAMES = [
    {"name": "<module>", "file": "/app/main.py", "line": 1},
    {"name": "serve", "file": "/app/main.py", "line": 10},
    {"name": "hot", "file": "/app/routes.py", "line": 20},
    {"name": "cold", "file": "/app/routes.py", "line": 30},
    {"name": "\x00\x07junk", "file": "\x01", "line": 7},  # a frame read while it changed
]


def speedscope(*threads: list[list[int]]) -> dict[str, Any]:
    return {
        "shared": {"frames": FRAMES},
        "profiles": [
            {"name": f'Thread {index} "t"', "samples": stacks, "weights": [0.01] * len(stacks)}
            for index, stacks in enumerate(threads)
        ],
    }


def boxes(svg: str) -> dict[str, float]:
    """The width of each box of a flame graph, by its tooltip (without the share)."""
    root = ElementTree.fromstring(svg)  # well-formed XML, or this raises
    found = {}
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        title = group.find("{http://www.w3.org/2000/svg}title")
        rect = group.find("{http://www.w3.org/2000/svg}rect")
        assert title is not None
        assert rect is not None
        found[(title.text or "").partition(": ")[0]] = float(rect.attrib["width"])
    return found


def test_a_flame_graph_box_is_as_wide_as_its_share_of_the_samples() -> None:
    hot, cold = [0, 1, 2], [0, 1, 3]
    widths = boxes(render_flamegraph(speedscope([hot, hot, hot, cold]), "app, round 1"))
    assert widths["all"] == 1200
    assert widths['Thread 0 "t"'] == 1200
    assert widths["<module> (/app/main.py:1)"] == 1200
    assert widths["hot (/app/routes.py:20)"] == 900
    assert widths["cold (/app/routes.py:30)"] == 300


def test_a_flame_graph_stands_each_thread_on_its_own_box() -> None:
    widths = boxes(render_flamegraph(speedscope([[0, 1, 2]], [[0, 1, 2]] * 3), "app"))
    assert (widths['Thread 0 "t"'], widths['Thread 1 "t"']) == (300, 900)
    assert widths["hot (/app/routes.py:20)"] == 900  # the box in thread 1


def test_a_flame_graph_survives_a_garbled_frame_and_no_samples() -> None:
    svg = render_flamegraph(speedscope([[0, 4]]), "app")
    assert "\ufffd\ufffdjunk (\ufffd:7)" in boxes(svg)
    assert boxes(render_flamegraph(speedscope([]), "app")) == {}
