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

import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from harness import (  # noqa: E402
    CACHE,
    Pin,
    Run,
    arguments,
    check_floor,
    fresh_tree,
    locked_venv,
    log,
    rate,
    record_floor,
    run_tests,
    unpack,
    write_section,
)
from suite import (  # noqa: E402
    group_of,
    is_tutorial,
    module_of,
    private_modules,
    schema_tests,
)

from hasten._cli.port import port_source  # noqa: E402

# The release whose tests run (scripts/lock reads the version here), its sdist's sha256; its
# side is recorded in compat/reference/ (its passing tests and its documents).
FASTAPI_VERSION = "0.165.0"
SDIST_SHA256 = "dd94d4128319c1e1d50535ab023ab698f850a4d2822f0e181747b46f4ff3c0ab"
FASTAPI = Pin("fastapi", FASTAPI_VERSION, SDIST_SHA256)
REFERENCE_VENV = CACHE / "venv-fastapi"
HASTEN_VENV = CACHE / "venv-hasten"
# What each venv installs, every version pinned with its hashes (scripts/lock makes them from
# requirements.txt: what FastAPI's tests import, beside the framework).
HASTEN_LOCK = HERE / "hasten.lock"
FASTAPI_LOCK = HERE / "fastapi.lock"
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
# Both cores; the tests FastAPI marks to share a worker (a working directory) share one.
WORKERS = ("-n", "2", "--dist", "loadgroup")


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
        data = FASTAPI.load_reference()
        return cls(set(data["passing"]), data["documents"])

    def save(self) -> None:
        FASTAPI.save_reference(self.passing, documents=self.documents)


def make_tree(source: Path, name: str, rewrite: bool) -> Path:
    """A fresh copy of the tutorial apps and tests; on the hasten side, every .py ported."""
    tree = fresh_tree(source, name, COPIED, PYTEST_INI)
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


def run_suite(python: Path, tree: Path, targets: list[str]) -> Run:
    """Each test's outcome, with the plugins FastAPI's tests use, on both cores."""
    return run_tests(python, tree, targets, (*PLUGINS, *WORKERS), _unit_of)


def _unit_of(node: str) -> str:
    parts = module_of(node).split(".")
    if is_tutorial(node):
        return "/".join(parts[:3])
    return f"tests/{parts[1]}" + ("" if len(parts) > 2 else ".py")


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
    outcomes = run_suite(python, tree, targets).outcomes
    documents = dump_documents(python, tree, tutorial_areas(targets))
    passing = {node for node, outcome in outcomes.items() if outcome.passed}
    Reference(passing, documents).save()
    log(f"recorded FastAPI {FASTAPI_VERSION}: {len(passing)} of {len(outcomes)} tests pass")


def main(argv: list[str] | None = None) -> int:
    options = arguments(__doc__.split("\n\n")[0], "FastAPI").parse_args(argv)
    started = time.monotonic()
    source = unpack(FASTAPI, COPIED)
    if options.reference:
        record_reference(source)
    reference = Reference.load()
    tree = make_tree(source, "hasten", rewrite=True)
    python = hasten_python()
    targets = units(tree, options.only)
    run = run_suite(python, tree, targets)
    areas = tutorial_areas(targets)
    documents = dump_documents(python, tree, areas) if areas else {}
    tutorial: dict[str, Area] = defaultdict(Area)
    others: dict[str, Group] = defaultdict(Group)
    selected = {node for node in reference.passing if _unit_of(node) in targets}
    tally_tutorial(tutorial, selected, run, schema_tests(tree))
    tally_documents(tutorial, reference.documents, documents, areas_of_apps(tree))
    tally_others(others, selected, run, private_modules(source))
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
        record_floor(rates)
        write_section(tables, TABLES_START, TABLES_END)
    return check_floor(rates) if options.check else 0


def tally_tutorial(areas: dict[str, Area], passing: set[str], ours: Run, schema: set[str]) -> None:
    """Count, by area, the tutorial tests that pass on FastAPI and whether they pass here."""
    for node in sorted(filter(is_tutorial, passing)):
        area = areas[group_of(node)]
        why = ours.why(node)
        passed = why is None
        if node.split("[")[0] in schema:
            area.schema_total += 1
            area.schema_passed += passed
        else:
            area.behaviour_total += 1
            area.behaviour_passed += passed
            if why is not None:
                area.failures.append(f"{node}: {why}")


def tally_others(groups: dict[str, Group], passing: set[str], ours: Run, private: set[str]) -> None:
    """Count, by topic, FastAPI's other tests that pass on FastAPI and whether they pass here."""
    for node in sorted(node for node in passing if not is_tutorial(node)):
        group = groups[group_of(node)]
        why = ours.why(node)
        passed = why is None
        if module_of(node) in private:
            group.private_total += 1
            group.private_passed += passed
        else:
            group.public_total += 1
            group.public_passed += passed
        if why is not None:
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
        "behaviour": rate(behaviour, behaviour_total),
        "openapi": rate(
            sum(area.apps_equal for area in tutorial.values()),
            sum(area.apps for area in tutorial.values()),
        ),
        "public": rate(public, public_total),
        "whole": rate(
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
