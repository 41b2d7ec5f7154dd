"""What compat/'s runners share (``run.py``, FastAPI's tests; ``starlette_suite.py``,
Starlette's; ``extensions.py`` and ``apps.py``): a pinned release's files from PyPI, venvs
installed from lock files, one pytest run over many units that one crash cannot end, its JUnit
report read back, the other side's record in ``compat/reference/``, the floor in
``compat/floor.json`` and the tables in ``RESULTS.md``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE",
    "FLOOR",
    "HERE",
    "RESULTS",
    "ROOT",
    "Outcome",
    "Pin",
    "Run",
    "arguments",
    "ask",
    "check_floor",
    "download",
    "fresh_tree",
    "locked_venv",
    "log",
    "parse_report",
    "rate",
    "read_report",
    "record_floor",
    "run_tests",
    "unpack",
    "write_section",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = ROOT / ".cache" / "compat"
FLOOR = HERE / "floor.json"
RESULTS = HERE / "RESULTS.md"
SIMPLE_INDEX = "https://pypi.org/simple/{project}/"
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def log(message: str) -> None:
    print(f"compat: {message}", file=sys.stderr, flush=True)


@dataclass
class Outcome:
    """One test's result in one run."""

    passed: bool
    message: str = ""


@dataclass
class Run:
    """A suite's outcomes by node id, and the first error line of each test module that did
    not import (its tests are then missing from ``outcomes``)."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    uncollected: dict[str, str] = field(default_factory=dict)

    def why(self, node: str) -> str | None:
        """Why the test ``node`` did not pass here, or None where it passed."""
        found = self.outcomes.get(node)
        if found is None:
            module = node.split("::", maxsplit=1)[0]
            error = self.uncollected.get(module)
            return f"not collected: {error}" if error else "not collected"
        return None if found.passed else found.message


@dataclass(frozen=True)
class Pin:
    """A released version of a project whose own test suite is run: its sdist on PyPI, checked
    by its sha256, and the record of which tests pass on it (``compat/reference/``)."""

    project: str
    version: str
    sha256: str

    @property
    def sdist_name(self) -> str:
        return f"{self.project}-{self.version}.tar.gz"

    @property
    def reference(self) -> Path:
        return HERE / "reference" / f"{self.project}-{self.version}.json.gz"

    def load_reference(self) -> dict[str, Any]:
        """The project's side, as ``save_reference`` wrote it for this very sdist."""
        if not self.reference.exists():
            raise SystemExit(
                f"compat: no record of {self.project} {self.version}'s side "
                f"({self.reference.name}): run the runner with --reference once for this pin"
            )
        data: dict[str, Any] = json.loads(gzip.decompress(self.reference.read_bytes()))
        if data["sdist_sha256"] != self.sha256:
            raise SystemExit(f"compat: {self.reference.name} was recorded from another sdist")
        return data

    def save_reference(self, passing: Iterable[str], **more: object) -> None:
        data = {
            self.project: self.version,
            "sdist_sha256": self.sha256,
            "passing": sorted(passing),
            **more,
        }
        self.reference.parent.mkdir(exist_ok=True)
        text = json.dumps(data, indent=0, sort_keys=True, default=str)
        self.reference.write_bytes(gzip.compress(text.encode(), mtime=0))


def download(project: str, filename: str, sha256: str) -> Path:
    """A file of ``project``'s releases on PyPI, downloaded once into the cache and checked
    against its hash (the index may give its address relative to its own page)."""
    path = CACHE / filename
    if not path.exists() or _sha256(path) != sha256:
        CACHE.mkdir(parents=True, exist_ok=True)
        index_url = SIMPLE_INDEX.format(project=project)
        request = urllib.request.Request(
            index_url, headers={"Accept": "application/vnd.pypi.simple.v1+json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            index = json.load(response)
        (found,) = [item for item in index["files"] if item["filename"] == filename]
        url = urllib.parse.urljoin(index_url, found["url"])
        log(f"downloading {url}")
        with urllib.request.urlopen(url, timeout=120) as response:
            path.write_bytes(response.read())
    digest = _sha256(path)
    if digest != sha256:
        raise SystemExit(f"compat: {filename} has sha256 {digest}, expected {sha256}")
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unpack(pin: Pin, parts: Sequence[str]) -> Path:
    """The sdist's ``parts`` (its top folders), unpacked once into the cache."""
    source = CACHE / f"{pin.project}-{pin.version}"
    if not all((source / part).exists() for part in parts):
        prefix = f"{source.name}/"
        with tarfile.open(download(pin.project, pin.sdist_name, pin.sha256)) as tar:
            members = [
                member
                for member in tar.getmembers()
                if member.name.removeprefix(prefix).split("/")[0] in parts
            ]
            tar.extractall(CACHE, members=members, filter="data")
    return source


def fresh_tree(source: Path, name: str, parts: Sequence[str], settings: str) -> Path:
    """A fresh copy of the source's ``parts`` in ``.cache/compat/name``, with ``settings`` as
    its ``pytest.ini``."""
    tree = CACHE / name
    if tree.exists():
        shutil.rmtree(tree)
    for part in parts:
        shutil.copytree(source / part, tree / part)
    (tree / "pytest.ini").write_text(settings)
    return tree


def locked_venv(venv: Path, lock: Path, *, checkout: bool = False) -> Path:
    """``venv`` holding exactly what ``lock`` pins (and, with ``checkout``, this checkout's
    hasten on its path, as an editable install puts it), installed by the development venv's
    uv; its python."""
    python = venv / "bin" / "python"
    marker = venv / "installed.txt"
    wanted = lock.read_text()
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    if not marker.exists() or marker.read_text() != wanted:
        log(f"installing {lock.name} into {venv.name}")
        uv = Path(sys.executable).parent / "uv"
        sync = [str(uv), "pip", "sync", "--quiet", "--require-hashes", "--python", str(python)]
        subprocess.run([*sync, str(lock)], check=True)
        marker.write_text(wanted)
    if checkout:
        site = ask(python, "import sysconfig; print(sysconfig.get_path('purelib'))")
        (Path(site) / "hasten-checkout.pth").write_text(f"{ROOT / 'src'}\n")
    return python


def ask(python: Path, code: str) -> str:
    """What ``code`` prints, run by ``python``."""
    done = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def arguments(description: str, project: str) -> argparse.ArgumentParser:
    """The options every suite runner takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="fail below the recorded floor")
    parser.add_argument("--record", action="store_true", help="record the rates as the floor")
    parser.add_argument(
        "--reference", action="store_true", help=f"run {project}'s side and record it for this pin"
    )
    parser.add_argument(
        "--only", action="append", default=[], help="only the test paths holding this string"
    )
    parser.add_argument("--failures", action="store_true", help="list each failing test")
    return parser


def run_tests(
    python: Path,
    tree: Path,
    targets: list[str],
    options: Sequence[str],
    unit_of: Callable[[str], str],
) -> Run:
    """Each test's outcome, by its node id (parametrized ids included), with pytest's
    ``options`` (plugins, workers).

    One pytest runs every unit (``targets``: test modules or folders; ``unit_of`` says which
    one a node id is in). Should it end early (an internal or usage error ends the session),
    the unit it was in runs on its own and the rest together again, so that one unit cannot
    take the others with it.
    """
    started = time.monotonic()
    run = Run()
    left = list(targets)
    while left:
        crashed = _pytest(python, tree, left, options, run)
        if not crashed:
            break
        reached = {unit_of(node) for node in run.outcomes}
        # The units before the last one reached are complete; that one runs alone.
        last = max((left.index(unit) for unit in reached if unit in left), default=0)
        _pytest(python, tree, [left[last]], options, run)
        log(f"{tree.name}: pytest ended early in {left[last]}")
        left = left[last + 1 :]
    log(f"{tree.name}: pytest took {time.monotonic() - started:.0f} s")
    return run


def _pytest(python: Path, tree: Path, targets: list[str], options: Sequence[str], run: Run) -> bool:
    """Run pytest on ``targets`` into ``run``; whether it ended early."""
    report = tree / "report.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, **PYTEST_ENV, "PYTHONPATH": str(tree)}
    command = [str(python), "-m", "pytest", "-q", "--no-header", "-rN", *options]
    command += ["--continue-on-collection-errors", f"--junitxml={report}", *targets]
    done = subprocess.run(
        command, cwd=tree, env=env, capture_output=True, text=True, check=False, timeout=1800
    )
    if report.exists():
        read_report(report, into=run)
    # 0: all passed, 1: some failed, 5: none collected; anything else ended the session early.
    if done.returncode in (0, 1, 5) and report.exists():
        return False
    last = (done.stdout + done.stderr).strip().splitlines()[-3:]
    log(f"{tree.name}: pytest exited with {done.returncode}: " + " / ".join(last)[-600:])
    return True


def read_report(report: Path, prefix: str = "tests.", into: Run | None = None) -> Run:
    """Each test's outcome in a JUnit report, by node id, for the tests whose module's dotted
    name starts with ``prefix``, and the first error line of each module that did not import
    (added ``into`` a run, where given)."""
    run = Run() if into is None else into
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if not classname and name.startswith(prefix) and failure is not None:
            run.uncollected[name] = _error_line(failure.text or "")
        if not classname.startswith(prefix) or case.find("skipped") is not None:
            continue
        node = f"{classname}::{name}"
        message = "" if failure is None else (failure.get("message") or "").strip()
        message = message.splitlines()[0][:300] if message else message
        if node in run.outcomes and not run.outcomes[node].passed:
            continue  # a teardown error after a failure: the failure says why
        run.outcomes[node] = Outcome(failure is None, message)
    return run


def parse_report(report: Path, prefix: str = "tests.") -> dict[str, Outcome]:
    """Each test's outcome in a JUnit report, by node id (``read_report``'s)."""
    return read_report(report, prefix).outcomes


def _error_line(traceback: str) -> str:
    """The first line of the error a traceback ends with (pytest marks its lines ``E``)."""
    for line in traceback.splitlines():
        if line.startswith("E   "):
            return line[1:].strip()[:300]
    return "collection failure"


def rate(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 0.0


def check_floor(rates: dict[str, float], section: str | None = None) -> int:
    """1, saying which, where one of ``rates`` is below its floor in floor.json (in its
    ``section``, where given); else 0."""
    floor = json.loads(FLOOR.read_text())
    if section is not None:
        floor = floor.get(section, {})
    for key, measured in rates.items():
        minimum = floor.get(key)
        if minimum is None:
            print(f"compat: floor.json holds no floor for {key!r}: record one (--record)")
            return 1
        if measured < minimum:
            print(f"compat: {key} pass rate {measured:.4f} is below the floor {minimum}")
            return 1
    return 0


def record_floor(rates: dict[str, float], section: str | None = None) -> None:
    """``rates`` as their floors in floor.json (as its ``section``, where given); the other
    runners' floors are kept."""
    floor = json.loads(FLOOR.read_text()) if FLOOR.exists() else {}
    floor.update({section: rates} if section is not None else rates)
    FLOOR.write_text(json.dumps(floor, indent=2) + "\n")


def write_section(tables: str, start: str, end: str) -> None:
    """The tables into RESULTS.md, between the markers ``start`` and ``end``; the rest of the
    page (the other runners' tables, what is written by hand) is kept."""
    page = RESULTS.read_text()
    begin, finish = page.index(start) + len(start), page.index(end)
    RESULTS.write_text(f"{page[:begin]}\n{tables}\n{page[finish:]}")
