"""FastAPI's own test suite, run on hasten: how much of FastAPI moves by its imports.

FastAPI's source distribution ships its tests (``tests/``, the tutorial tests among them, and
the tutorial apps in ``docs_src/``). This runner downloads a pinned release from PyPI and runs
every test with each ``fastapi`` and ``starlette`` import rewritten by ``hasten port``'s one
rule, and nothing else touched, on hasten. Which tests pass on FastAPI itself, and each tutorial
app's OpenAPI document there, are recorded once per pinned version in ``compat/reference/``
(``--reference`` runs FastAPI's side and writes the record), so that CI runs hasten's side only.

It prints two tables:

- the tutorial tests by area: of the behaviour tests that pass on FastAPI, how many pass on
  hasten; the tests that compare a whole OpenAPI document as a literal, apart; each tutorial
  app's OpenAPI document compared with FastAPI's by meaning (``compat/meaning.py``);
- FastAPI's other tests by topic, the tests of its public API apart from those whose module
  imports a private part of FastAPI (``compat/suite.py`` says which, by rule).

``--check`` fails when a rate is below the floor in ``compat/floor.json`` (``--record`` writes
the measured rates there, and the tables to ``compat/RESULTS.md``).

    python compat/run.py [--check] [--record] [--reference] [--only test_query] [--failures]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from suite import (  # noqa: E402
    group_of,
    is_tutorial,
    module_of,
    private_modules,
    schema_tests,
)

from hasten._cli.port import port_source  # noqa: E402

FASTAPI_VERSION = "0.165.0"
SDIST = f"fastapi-{FASTAPI_VERSION}.tar.gz"
SDIST_SHA256 = "dd94d4128319c1e1d50535ab023ab698f850a4d2822f0e181747b46f4ff3c0ab"
SIMPLE_INDEX = "https://pypi.org/simple/{project}/"
CACHE = ROOT / ".cache" / "compat"
REFERENCE_VENV = CACHE / "venv-fastapi"
HASTEN_VENV = CACHE / "venv-hasten"
# FastAPI's side, recorded once per pinned version: its passing tests and its documents.
REFERENCE = HERE / "reference" / f"fastapi-{FASTAPI_VERSION}.json.gz"
# What each venv installs, every version pinned with its hashes (scripts/lock makes them from
# requirements.txt: what FastAPI's tests import, beside the framework).
HASTEN_LOCK = HERE / "hasten.lock"
FASTAPI_LOCK = HERE / "fastapi.lock"
FLOOR = HERE / "floor.json"
RESULTS = HERE / "RESULTS.md"
# Where in RESULTS.md `--record` writes its tables.
TABLES_START, TABLES_END = "<!-- tables: compat/run.py --record -->", "<!-- end of tables -->"
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
BLOCKER = """# Written by compat/run.py: FastAPI and Starlette cannot be imported in this tree.
import sys


class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "starlette"):
            raise ImportError(f"{name} is blocked: this is the hasten run")
        return None


sys.meta_path.insert(0, _Blocked())
"""
# Each xdist worker of the hasten side in a working directory of its own, linked to the tree's
# parts: FastAPI's tutorial tests make and delete ./static and ./log.txt, and two modules on the
# two workers at once took each other's (2 to 3 tutorial tests failed a run, one short of the
# floor). FastAPI's side is recorded, not run (compat/reference/).
OWN_WORKING_DIRECTORY = """
import os
from pathlib import Path

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _tree = Path(__file__).resolve().parent
    _own = _tree / ".workers" / _worker
    _own.mkdir(parents=True, exist_ok=True)
    for _part in {parts!r}:
        if not (_own / _part).is_symlink():
            (_own / _part).symlink_to(_tree / _part)
    os.chdir(_own)
"""
# Only the plugins FastAPI's tests use, on both sides (a venv's others, loaded at every start,
# cost seconds, and may change what a test sees).
PLUGINS = ("-p", "xdist.plugin", "-p", "pytest_timeout", "-p", "anyio.pytest_plugin")
PLUGINS += ("-p", "inline_snapshot.pytest_plugin", "-p", "pytest_codspeed.plugin")
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
# Both cores; the tests FastAPI marks to share a worker (a working directory) share one.
WORKERS = ("-n", "2", "--dist", "loadgroup")


@dataclass
class Outcome:
    """One test's result in one run."""

    passed: bool
    message: str = ""


@dataclass
class Area:
    """A tutorial area's counts."""

    behaviour_total: int = 0
    behaviour_passed: int = 0
    schema_total: int = 0
    schema_passed: int = 0
    apps: int = 0
    apps_equal: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass
class Group:
    """A topic group's counts among FastAPI's other tests: public API and private apart."""

    public_total: int = 0
    public_passed: int = 0
    private_total: int = 0
    private_passed: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass
class Reference:
    """FastAPI's side of the comparison, for one pinned version."""

    passing: set[str]
    documents: dict[str, object]

    @classmethod
    def load(cls) -> Reference:
        if not REFERENCE.exists():
            raise SystemExit(
                f"compat: no record of FastAPI {FASTAPI_VERSION}'s side ({REFERENCE.name}): "
                "run `python compat/run.py --reference` once for this pin"
            )
        data = json.loads(gzip.decompress(REFERENCE.read_bytes()))
        if data["sdist_sha256"] != SDIST_SHA256:
            raise SystemExit(f"compat: {REFERENCE.name} was recorded from another sdist")
        return cls(set(data["passing"]), data["documents"])

    def save(self) -> None:
        data = {
            "fastapi": FASTAPI_VERSION,
            "sdist_sha256": SDIST_SHA256,
            "passing": sorted(self.passing),
            "documents": self.documents,
        }
        REFERENCE.parent.mkdir(exist_ok=True)
        text = json.dumps(data, indent=0, sort_keys=True, default=str)
        REFERENCE.write_bytes(gzip.compress(text.encode(), mtime=0))


def log(message: str) -> None:
    print(f"compat: {message}", file=sys.stderr, flush=True)


def sdist() -> Path:
    """FastAPI's pinned sdist, downloaded once into the cache and checked against its hash."""
    return download("fastapi", SDIST, SDIST_SHA256)


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
        (tree / "conftest.py").write_text(BLOCKER + OWN_WORKING_DIRECTORY.format(parts=COPIED))
    return tree


def reference_python() -> Path:
    """The reference venv: FastAPI as released, with what its tests import."""
    return locked_venv(REFERENCE_VENV, FASTAPI_LOCK)


def hasten_python() -> Path:
    """A venv of hasten from this checkout, with its batteries and what FastAPI's tests import
    (apart from hasten's development venv, whose pytest plugins would change the run)."""
    return locked_venv(HASTEN_VENV, HASTEN_LOCK, checkout=True)


def locked_venv(venv: Path, lock: Path, *, checkout: bool = False) -> Path:
    """``venv`` holding exactly what ``lock`` pins (and, with ``checkout``, this checkout's
    hasten on its path, as an editable install puts it), installed by the development venv's
    uv."""
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
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        (Path(site) / "hasten-checkout.pth").write_text(f"{ROOT / 'src'}\n")
    return python


def units(tree: Path, only: list[str]) -> list[str]:
    """What one pytest is given, in order: each tutorial area's folder, then each other test
    module or package of FastAPI's ``tests/``; with ``only``, those whose path holds one of
    its strings."""
    tests = tree / "tests"
    found = [
        f"tests/test_tutorial/{path.name}"
        for path in sorted((tests / "test_tutorial").iterdir())
        if path.is_dir() and path.name.startswith("test_")
    ]
    found += [
        f"tests/{path.name}"
        for path in sorted(tests.iterdir())
        if path.name != "test_tutorial"
        and ((path.is_dir() and (path / "__init__.py").exists()) or path.match("test_*.py"))
    ]
    return [unit for unit in found if not only or any(part in unit for part in only)]


def run_tests(python: Path, tree: Path, targets: list[str]) -> dict[str, Outcome]:
    """Each test's outcome, by its node id (parametrized ids included).

    One pytest runs every unit. Should it end early (an internal or usage error ends the
    session), the unit it was in runs on its own and the rest together again, so that one
    unit cannot take the others with it.
    """
    started = time.monotonic()
    outcomes: dict[str, Outcome] = {}
    left = list(targets)
    while left:
        found, crashed = _pytest(python, tree, left)
        outcomes.update(found)
        if not crashed:
            break
        reached = {_unit_of(node) for node in found}
        # The units before the last one reached are complete; that one runs alone.
        last = max((left.index(unit) for unit in reached if unit in left), default=0)
        alone, _ = _pytest(python, tree, [left[last]])
        outcomes.update(alone)
        log(f"{tree.name}: pytest ended early in {left[last]}")
        left = left[last + 1 :]
    log(f"{tree.name}: pytest took {time.monotonic() - started:.0f} s")
    return outcomes


def _unit_of(node: str) -> str:
    parts = module_of(node).split(".")
    if is_tutorial(node):
        return "/".join(parts[:3])
    return f"tests/{parts[1]}" + ("" if len(parts) > 2 else ".py")


def _pytest(python: Path, tree: Path, targets: list[str]) -> tuple[dict[str, Outcome], bool]:
    report = tree / "report.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, **PYTEST_ENV, "PYTHONPATH": str(tree)}
    command = [str(python), "-m", "pytest", "-q", "--no-header", "-rN", *PLUGINS, *WORKERS]
    command += ["--continue-on-collection-errors", f"--junitxml={report}", *targets]
    done = subprocess.run(
        command, cwd=tree, env=env, capture_output=True, check=False, timeout=1800
    )
    # 0: all passed, 1: some failed, 5: none collected; anything else ended the session early.
    crashed = done.returncode not in (0, 1, 5) or not report.exists()
    return (parse_report(report) if report.exists() else {}), crashed


def parse_report(report: Path, prefix: str = "tests.") -> dict[str, Outcome]:
    """Each test's outcome in a JUnit report, by node id, for the tests whose module's dotted
    name starts with ``prefix``."""
    outcomes: dict[str, Outcome] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        if not classname.startswith(prefix):
            continue
        node = f"{classname}::{name}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if case.find("skipped") is not None:
            continue
        message = "" if failure is None else (failure.get("message") or "").strip()
        message = message.splitlines()[0][:300] if message else message
        if node in outcomes and not outcomes[node].passed:
            continue  # a teardown error after a failure: the failure says why
        outcomes[node] = Outcome(failure is None, message)
    return outcomes


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


def tutorial_areas(targets: list[str]) -> list[str]:
    """The tutorial areas among the units run (for the documents to dump)."""
    prefix = "tests/test_tutorial/test_"
    return [unit.removeprefix(prefix) for unit in targets if unit.startswith(prefix)]


def record_reference(source: Path) -> None:
    """Run FastAPI's side (every test, every tutorial app's document) and record it."""
    tree = make_tree(source, "fastapi", rewrite=False)
    python = reference_python()
    targets = units(tree, [])
    outcomes = run_tests(python, tree, targets)
    documents = dump_documents(python, tree, tutorial_areas(targets))
    passing = {node for node, outcome in outcomes.items() if outcome.passed}
    Reference(passing, documents).save()
    log(f"recorded FastAPI {FASTAPI_VERSION}: {len(passing)} of {len(outcomes)} tests pass")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail below the recorded floor")
    parser.add_argument("--record", action="store_true", help="record the rates as the floor")
    parser.add_argument(
        "--reference", action="store_true", help="run FastAPI's side and record it for this pin"
    )
    parser.add_argument(
        "--only", action="append", default=[], help="only the test paths holding this string"
    )
    parser.add_argument("--failures", action="store_true", help="list each failing test")
    options = parser.parse_args(argv)
    started = time.monotonic()
    source = unpack(sdist())
    if options.reference:
        record_reference(source)
    reference = Reference.load()
    tree = make_tree(source, "hasten", rewrite=True)
    python = hasten_python()
    targets = units(tree, options.only)
    outcomes = run_tests(python, tree, targets)
    areas = tutorial_areas(targets)
    documents = dump_documents(python, tree, areas) if areas else {}
    tutorial: dict[str, Area] = defaultdict(Area)
    others: dict[str, Group] = defaultdict(Group)
    selected = {node for node in reference.passing if _unit_of(node) in targets}
    tally_tutorial(tutorial, selected, outcomes, schema_tests(tree))
    tally_documents(tutorial, reference.documents, documents, areas_of_apps(tree))
    tally_others(others, selected, outcomes, private_modules(source))
    seconds = time.monotonic() - started
    tables = render(tutorial, others, seconds)
    print(tables)
    if options.failures:
        for name in sorted(tutorial):
            print("\n".join(f"  {failure}" for failure in tutorial[name].failures))
        for name in sorted(others):
            print("\n".join(f"  {failure}" for failure in others[name].failures))
    rates = totals(tutorial, others)
    if options.record and not options.only:
        # The floor's other entries (the extensions', compat/extensions.py) are kept.
        FLOOR.write_text(json.dumps({**json.loads(FLOOR.read_text()), **rates}, indent=2) + "\n")
        write_results(tables)
    if options.check:
        floor = json.loads(FLOOR.read_text())
        for key, minimum in ((key, floor[key]) for key in rates if key in floor):
            if rates[key] < minimum:
                print(f"compat: {key} pass rate {rates[key]:.4f} is below the floor {minimum}")
                return 1
    return 0


def write_results(tables: str) -> None:
    """The tables into RESULTS.md, between its markers; the rest of the page (the real apps,
    the figures before) is written by hand and kept."""
    page = RESULTS.read_text()
    start, end = page.index(TABLES_START) + len(TABLES_START), page.index(TABLES_END)
    RESULTS.write_text(f"{page[:start]}\n{tables}\n{page[end:]}")


def tally_tutorial(
    areas: dict[str, Area], passing: set[str], ours: dict[str, Outcome], schema: set[str]
) -> None:
    """Count, by area, the tutorial tests that pass on FastAPI and whether they pass here."""
    for node in sorted(filter(is_tutorial, passing)):
        area = areas[group_of(node)]
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


def tally_others(
    groups: dict[str, Group], passing: set[str], ours: dict[str, Outcome], private: set[str]
) -> None:
    """Count, by topic, FastAPI's other tests that pass on FastAPI and whether they pass here."""
    for node in sorted(node for node in passing if not is_tutorial(node)):
        group = groups[group_of(node)]
        found = ours.get(node)
        passed = found is not None and found.passed
        if module_of(node) in private:
            group.private_total += 1
            group.private_passed += passed
        else:
            group.public_total += 1
            group.public_passed += passed
        if not passed:
            why = "not collected" if found is None else found.message
            group.failures.append(f"{node}: {why}")


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


def _rate(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 0.0


def totals(tutorial: dict[str, Area], others: dict[str, Group]) -> dict[str, float]:
    """The rates the floor holds: the tutorial's behaviour tests and documents, the other
    tests of FastAPI's public API, and every test of the suite."""
    behaviour = sum(area.behaviour_passed for area in tutorial.values())
    behaviour_total = sum(area.behaviour_total for area in tutorial.values())
    public = sum(group.public_passed for group in others.values())
    public_total = sum(group.public_total for group in others.values())
    private = sum(group.private_passed for group in others.values())
    private_total = sum(group.private_total for group in others.values())
    schema = sum(area.schema_passed for area in tutorial.values())
    schema_total = sum(area.schema_total for area in tutorial.values())
    return {
        "behaviour": _rate(behaviour, behaviour_total),
        "openapi": _rate(
            sum(area.apps_equal for area in tutorial.values()),
            sum(area.apps for area in tutorial.values()),
        ),
        "public": _rate(public, public_total),
        "whole": _rate(
            behaviour + schema + public + private,
            behaviour_total + schema_total + public_total + private_total,
        ),
    }


def render(tutorial: dict[str, Area], others: dict[str, Group], seconds: float) -> str:
    """The two tables, and the whole suite's figure."""
    rows = [f"FastAPI {FASTAPI_VERSION}'s test suite on hasten ({seconds:.0f} s)", ""]
    rows += ["## The tutorial tests, by area", ""]
    rows += ["| area | behaviour | exact schema | OpenAPI by meaning |"]
    rows += ["| --- | --: | --: | --: |"]
    for name in sorted(tutorial):
        area = tutorial[name]
        rows.append(
            f"| {name} | {area.behaviour_passed}/{area.behaviour_total} "
            f"| {area.schema_passed}/{area.schema_total} | {area.apps_equal}/{area.apps} |"
        )
    behaviour = sum(area.behaviour_passed for area in tutorial.values())
    behaviour_total = sum(area.behaviour_total for area in tutorial.values())
    schema = sum(area.schema_passed for area in tutorial.values())
    schema_total = sum(area.schema_total for area in tutorial.values())
    apps = sum(area.apps_equal for area in tutorial.values())
    apps_total = sum(area.apps for area in tutorial.values())
    rates = totals(tutorial, others)
    rows.append(
        f"| **all** | **{behaviour}/{behaviour_total} ({rates['behaviour']:.1%})** "
        f"| {schema}/{schema_total} | **{apps}/{apps_total} ({rates['openapi']:.1%})** |"
    )
    rows += ["", "## FastAPI's other tests, by topic", ""]
    rows += ["| topic | public API | private modules | all |"]
    rows += ["| --- | --: | --: | --: |"]
    for name in sorted(others):
        group = others[name]
        passed = group.public_passed + group.private_passed
        total = group.public_total + group.private_total
        rows.append(
            f"| {name} | {group.public_passed}/{group.public_total} "
            f"| {group.private_passed}/{group.private_total} | {passed}/{total} |"
        )
    public = sum(group.public_passed for group in others.values())
    public_total = sum(group.public_total for group in others.values())
    private = sum(group.private_passed for group in others.values())
    private_total = sum(group.private_total for group in others.values())
    rows.append(
        f"| **all** | **{public}/{public_total} ({rates['public']:.1%})** "
        f"| {private}/{private_total} | {public + private}/{public_total + private_total} |"
    )
    everything = behaviour + schema + public + private
    everything_total = behaviour_total + schema_total + public_total + private_total
    rows += [
        "",
        f"The whole suite: **{everything}/{everything_total} ({rates['whole']:.1%})** of the "
        f"tests that pass on FastAPI {FASTAPI_VERSION} pass on hasten.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
