"""FastAPI's tutorial suite, run on FastAPI and on hasten: how much of FastAPI moves by imports.

FastAPI's source distribution ships its tutorial apps (``docs_src/``) and their tests
(``tests/test_tutorial/``). This runner downloads a pinned release from PyPI, runs the tests
as they are on FastAPI (the reference: which tests pass there), then once more with every
``fastapi`` and ``starlette`` import rewritten by ``hasten port``'s one rule, and nothing else
touched. It prints a table by tutorial area:

- behaviour tests: of those that pass on FastAPI, how many pass on hasten;
- exact-schema tests (a whole OpenAPI document compared as a literal) are counted apart;
- OpenAPI by meaning: each tutorial app that loads on both, its document compared with
  FastAPI's after the cosmetic differences are removed (``compat/meaning.py``).

``--check`` fails when the behaviour pass rate or the OpenAPI rate is below the floor recorded
in ``compat/floor.json`` (``--record`` writes the measured rates there).

    python compat/run.py [--check] [--record] [--area body] [--keep]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from hasten.port import port_source  # noqa: E402

FASTAPI_VERSION = "0.165.0"
SDIST = f"fastapi-{FASTAPI_VERSION}.tar.gz"
SDIST_SHA256 = "dd94d4128319c1e1d50535ab023ab698f850a4d2822f0e181747b46f4ff3c0ab"
SIMPLE_INDEX = "https://pypi.org/simple/fastapi/"
CACHE = ROOT / ".cache" / "compat"
REFERENCE_VENV = CACHE / "venv-fastapi"
HASTEN_PYTHON = ROOT / ".venv" / "bin" / "python"
REQUIREMENTS = HERE / "requirements.txt"
FLOOR = HERE / "floor.json"
RESULTS = HERE / "RESULTS.md"
# What of the sdist is copied: the tutorial apps, and the tests with their helpers.
COPIED = ("docs_src", "tests")
# The pytest settings of FastAPI's own pyproject, for both runs.
PYTEST_INI = """[pytest]
addopts = --strict-markers -p no:cacheprovider
strict_xfail = true
filterwarnings =
    error
timeout = 30
"""
# On the hasten side FastAPI and Starlette must not be importable at all: a test that passes
# must have passed on hasten, not on a FastAPI reached through some third-party import.
BLOCKER = '''"""Written by compat/run.py: FastAPI and Starlette cannot be imported in this tree."""
import sys


class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "starlette"):
            raise ImportError(f"{name} is blocked: this is the hasten run")
        return None


sys.meta_path.insert(0, _Blocked())
'''


# Only the plugins the tutorial tests use, on both sides (a venv's others, loaded at every
# start, cost seconds when each area runs on its own).
PLUGINS = ("-p", "xdist.plugin", "-p", "pytest_timeout", "-p", "anyio.pytest_plugin")
PLUGINS += ("-p", "inline_snapshot.pytest_plugin")
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}


@dataclass
class Outcome:
    """One test's result in one run."""

    passed: bool
    message: str = ""


@dataclass
class Area:
    behaviour_total: int = 0
    behaviour_passed: int = 0
    schema_total: int = 0
    schema_passed: int = 0
    apps: int = 0
    apps_equal: int = 0
    failures: list[str] = field(default_factory=list)


def log(message: str) -> None:
    print(f"compat: {message}", file=sys.stderr, flush=True)


def sdist() -> Path:
    """The pinned sdist, downloaded once into the cache and checked against its hash."""
    path = CACHE / SDIST
    if not path.exists() or _sha256(path) != SDIST_SHA256:
        CACHE.mkdir(parents=True, exist_ok=True)
        request = urllib.request.Request(
            SIMPLE_INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            index = json.load(response)
        (found,) = [item for item in index["files"] if item["filename"] == SDIST]
        log(f"downloading {found['url']}")
        with urllib.request.urlopen(found["url"], timeout=120) as response:
            path.write_bytes(response.read())
    digest = _sha256(path)
    if digest != SDIST_SHA256:
        raise SystemExit(f"compat: {SDIST} has sha256 {digest}, expected {SDIST_SHA256}")
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unpack(archive: Path) -> Path:
    """The sdist's tutorial apps and tests, unpacked once."""
    source = CACHE / f"fastapi-{FASTAPI_VERSION}"
    if not (source / "docs_src").is_dir():
        with tarfile.open(archive) as tar:
            prefix = f"fastapi-{FASTAPI_VERSION}/"
            members = [
                member
                for member in tar.getmembers()
                if member.name.removeprefix(prefix).split("/")[0] in COPIED
            ]
            tar.extractall(CACHE, members=members, filter="data")
    return source


def make_tree(source: Path, name: str, rewrite: bool) -> Path:
    """A fresh copy of the tutorial apps and tests; on the hasten side, every .py ported."""
    tree = CACHE / name
    if tree.exists():
        shutil.rmtree(tree)
    for part in COPIED:
        shutil.copytree(source / part, tree / part)
    (tree / "pytest.ini").write_text(PYTEST_INI)
    if rewrite:
        for path in tree.rglob("*.py"):
            text = path.read_text()
            try:
                ported = port_source(text)
            except SyntaxError:
                continue  # a file for a newer Python (its test is skipped there too)
            if ported != text:
                path.write_text(ported)
        (tree / "conftest.py").write_text(BLOCKER)
    return tree


def reference_python() -> Path:
    """The reference venv: FastAPI as released, with the tutorials' own requirements."""
    python = REFERENCE_VENV / "bin" / "python"
    marker = REFERENCE_VENV / "installed.txt"
    wanted = f"fastapi=={FASTAPI_VERSION}\n{REQUIREMENTS.read_text()}"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(REFERENCE_VENV)], check=True)
    if not marker.exists() or marker.read_text() != wanted:
        log("installing FastAPI and the tutorials' requirements into the reference venv")
        _pip(python, f"fastapi=={FASTAPI_VERSION}", "-r", str(REQUIREMENTS))
        marker.write_text(wanted)
    return python


def hasten_python() -> Path:
    """hasten's own venv, with the tutorials' requirements added."""
    marker = CACHE / "hasten-installed.txt"
    wanted = REQUIREMENTS.read_text()
    if not marker.exists() or marker.read_text() != wanted:
        log("installing the tutorials' requirements into .venv")
        _pip(HASTEN_PYTHON, "-r", str(REQUIREMENTS))
        marker.write_text(wanted)
    return HASTEN_PYTHON


def _pip(python: Path, *arguments: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *arguments], check=True)


def run_tests(python: Path, tree: Path, areas: list[str]) -> dict[str, Outcome]:
    """Each test's outcome, by its node id (parametrized ids included).

    One pytest runs every area. Should it end early (an internal or usage error ends the
    session), the area it was in runs on its own and the rest together again, so that one
    area cannot take the others with it.
    """
    tests = tree / "tests" / "test_tutorial"
    left = sorted(
        path.name
        for path in tests.iterdir()
        if path.is_dir() and (not areas or path.name.removeprefix("test_") in areas)
    )
    started = time.monotonic()
    outcomes: dict[str, Outcome] = {}
    while left:
        found, crashed = _pytest(python, tree, [f"tests/test_tutorial/{name}" for name in left])
        outcomes.update(found)
        if not crashed:
            break
        reached = {node.split("::", maxsplit=1)[0].split(".")[2] for node in found}
        # The areas before the last one reached are complete; that one runs alone.
        last = max((left.index(name) for name in reached), default=0)
        alone, _ = _pytest(python, tree, [f"tests/test_tutorial/{left[last]}"])
        outcomes.update(alone)
        log(f"{tree.name}: pytest ended early in {left[last]}")
        left = left[last + 1 :]
    log(f"{tree.name}: pytest took {time.monotonic() - started:.0f} s")
    return outcomes


def _pytest(python: Path, tree: Path, targets: list[str]) -> tuple[dict[str, Outcome], bool]:
    report = tree / "report.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, **PYTEST_ENV, "PYTHONPATH": str(tree)}
    command = [str(python), "-m", "pytest", "-q", "--no-header", "-rN", *PLUGINS]
    command += ["--continue-on-collection-errors", f"--junitxml={report}", *targets]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False, timeout=900)
    # 0: all passed, 1: some failed, 5: none collected; anything else ended the session early.
    crashed = done.returncode not in (0, 1, 5) or not report.exists()
    return (parse_report(report) if report.exists() else {}), crashed


def parse_report(report: Path) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        if not classname.startswith("tests.test_tutorial"):
            continue
        node = f"{classname}::{name}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if case.find("skipped") is not None:
            continue
        message = "" if failure is None else (failure.get("message") or "")[:300]
        if node in outcomes and not outcomes[node].passed:
            continue  # a teardown error after a failure: the failure says why
        outcomes[node] = Outcome(failure is None, message)
    return outcomes


def schema_tests(tree: Path) -> set[str]:
    """The tests that compare a whole OpenAPI document as a literal: each test function whose
    body holds a dict literal with an ``"openapi"`` key, by ``module::function``."""
    found = set()
    for path in (tree / "tests" / "test_tutorial").rglob("test_*.py"):
        module = ".".join(path.relative_to(tree).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                isinstance(inner, ast.Dict)
                and any(
                    isinstance(key, ast.Constant) and key.value == "openapi" for key in inner.keys
                )
                for inner in ast.walk(node)
            ):
                found.add(f"{module}::{node.name}")
    return found


def area_of(node: str) -> str:
    # tests.test_tutorial.test_body.test_tutorial001::test_x[param] -> body
    return node.split("::", maxsplit=1)[0].split(".")[2].removeprefix("test_")


def areas_of_apps(tree: Path) -> dict[str, str]:
    """The test area of each tutorial app's folder (``docs_src.X``): the area whose tests
    import it (their names differ at times: ``path_operation_configuration`` is tested by
    ``test_path_operation_configurations``)."""
    found: dict[str, str] = {}
    for path in (tree / "tests" / "test_tutorial").rglob("test_*.py"):
        area = path.parent.name.removeprefix("test_")
        for folder in re.findall(r"docs_src\.(\w+)", path.read_text()):
            found.setdefault(folder, area)
    return found


def dump_documents(python: Path, tree: Path, areas: list[str]) -> dict[str, object]:
    """Each tutorial app's OpenAPI document (or why it has none), by module name."""
    out = tree / "documents.json"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run(
        [str(python), str(HERE / "documents.py"), str(out), *areas],
        cwd=tree,
        env=env,
        check=True,
        timeout=600,
    )
    documents: dict[str, object] = json.loads(out.read_text())
    return documents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail below the recorded floor")
    parser.add_argument("--record", action="store_true", help="record the rates as the floor")
    parser.add_argument("--area", action="append", default=[], help="only this tutorial area")
    parser.add_argument("--failures", action="store_true", help="list each failing test")
    options = parser.parse_args(argv)
    started = time.monotonic()
    source = unpack(sdist())
    reference_tree = make_tree(source, "fastapi", rewrite=False)
    hasten_tree = make_tree(source, "hasten", rewrite=True)
    # FastAPI's side and hasten's run at once, each step (install, tests, documents): they
    # share nothing but the machine, and CI's has two cores.
    with ThreadPoolExecutor(2) as sides:
        reference_setup, hasten_setup = sides.submit(reference_python), sides.submit(hasten_python)
        reference, hasten = reference_setup.result(), hasten_setup.result()
        reference_tests = sides.submit(run_tests, reference, reference_tree, options.area)
        hasten_tests = sides.submit(run_tests, hasten, hasten_tree, options.area)
        reference_documents = sides.submit(dump_documents, reference, reference_tree, options.area)
        hasten_documents = sides.submit(dump_documents, hasten, hasten_tree, options.area)
        areas: dict[str, Area] = defaultdict(Area)
        tally_tests(
            areas, reference_tests.result(), hasten_tests.result(), schema_tests(reference_tree)
        )
        tally_documents(
            areas,
            reference_documents.result(),
            hasten_documents.result(),
            areas_of_apps(reference_tree),
        )
    print(render(areas, time.monotonic() - started))
    if options.failures:
        for name in sorted(areas):
            for failure in areas[name].failures:
                print(f"  {failure}")
    rates = totals(areas)
    if options.record and not options.area:
        FLOOR.write_text(json.dumps(rates, indent=2) + "\n")
        RESULTS.write_text(
            "# FastAPI's tutorial suite on hasten\n\nWritten by `python compat/run.py "
            "--record` (the floor in floor.json is these rates).\n\n"
            + render(areas, time.monotonic() - started)
            + "\n"
        )
    if options.check:
        floor = json.loads(FLOOR.read_text())
        for key in ("behaviour", "openapi"):
            if rates[key] < floor[key]:
                print(f"compat: {key} pass rate {rates[key]:.4f} is below the floor {floor[key]}")
                return 1
    return 0


def tally_tests(
    areas: dict[str, Area],
    reference: dict[str, Outcome],
    ours: dict[str, Outcome],
    schema: set[str],
) -> None:
    """Count, by area, the tests that pass on FastAPI and whether they pass on hasten."""
    for node, outcome in reference.items():
        if not outcome.passed:
            continue
        area = areas[area_of(node)]
        found = ours.get(node)
        passed = found is not None and found.passed
        if node.split("[")[0] in schema:
            area.schema_total += 1
            area.schema_passed += passed
        else:
            area.behaviour_total += 1
            area.behaviour_passed += passed
            if not passed:
                why = "not collected" if found is None else found.message
                area.failures.append(f"{node}: {why}")


def tally_documents(
    areas: dict[str, Area],
    reference: dict[str, object],
    ours: dict[str, object],
    area_of_app: dict[str, str],
) -> None:
    """Compare, by area, the OpenAPI document of each app that loads on both."""
    from meaning import compare  # compat/meaning.py

    for module, document in reference.items():
        mine = ours.get(module)
        if not isinstance(document, dict) or not isinstance(mine, dict):
            continue
        folder = module.split(".")[1]
        area = areas[area_of_app.get(folder, folder)]
        area.apps += 1
        differences = compare(document, mine)
        if differences:
            area.failures.append(f"openapi {module}: {differences[0]}")
        else:
            area.apps_equal += 1


def totals(areas: dict[str, Area]) -> dict[str, float]:
    behaviour = sum(area.behaviour_passed for area in areas.values())
    behaviour_total = sum(area.behaviour_total for area in areas.values())
    apps = sum(area.apps_equal for area in areas.values())
    apps_total = sum(area.apps for area in areas.values())
    return {
        "behaviour": round(behaviour / behaviour_total, 4) if behaviour_total else 0.0,
        "openapi": round(apps / apps_total, 4) if apps_total else 0.0,
    }


def render(areas: dict[str, Area], seconds: float) -> str:
    rows = [
        f"FastAPI {FASTAPI_VERSION} tutorial suite on hasten ({seconds:.0f} s)",
        "",
        "| area | behaviour | exact schema | OpenAPI by meaning |",
        "| --- | --: | --: | --: |",
    ]
    for name in sorted(areas):
        area = areas[name]
        rows.append(
            f"| {name} | {area.behaviour_passed}/{area.behaviour_total} "
            f"| {area.schema_passed}/{area.schema_total} | {area.apps_equal}/{area.apps} |"
        )
    behaviour = sum(area.behaviour_passed for area in areas.values())
    behaviour_total = sum(area.behaviour_total for area in areas.values())
    schema = sum(area.schema_passed for area in areas.values())
    schema_total = sum(area.schema_total for area in areas.values())
    apps = sum(area.apps_equal for area in areas.values())
    apps_total = sum(area.apps for area in areas.values())
    rates = totals(areas)
    rows.append(
        f"| **all** | **{behaviour}/{behaviour_total} ({rates['behaviour']:.1%})** "
        f"| {schema}/{schema_total} | **{apps}/{apps_total} ({rates['openapi']:.1%})** |"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())
