"""The results document: every measurement, the medians, the settings, versions and machine.

It is what ``--json`` writes, what ``--baseline`` reads back, and what the reports render.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .compare import TargetResult, ratios
from .measurement import LoadGenerator
from .target import AppTarget, UrlTarget
from .wrk import find_wrk, wrk_version

__all__ = ["SCHEMA", "build_document", "machine", "versions", "write_json"]

SCHEMA = "hasten-bench/1"
_PACKAGES = ("hasten", "granian", "uvicorn", "psutil")


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
        "versions": versions(),
        "machine": machine(),
        "targets": [
            _target(result, ratio) for result, ratio in zip(results, relative, strict=True)
        ],
    }


def write_json(document: dict[str, Any], path: Path) -> None:
    """Write ``document`` to ``path``, indented."""
    path.write_text(json.dumps(document, indent=2) + "\n")


def versions() -> dict[str, str | None]:
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


def machine() -> dict[str, Any]:
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
        {"round": measurement.round, **measurement.metrics(), "statuses": measurement.load.statuses}
        for measurement in result.rounds
    ]
    return described | {"rounds": rounds, "median": result.median(), "ratio": ratio}


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
