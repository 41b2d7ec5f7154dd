"""Starlette's own test suite, run on hasten with nothing rewritten: how much of Starlette's API
hasten serves, by Starlette's own spec.

Starlette's source distribution ships its tests (``tests/``). This runner downloads a pinned
release from PyPI and runs them, unmodified, with hasten's switch on (``-p
hasten.testing.plugin --as-fastapi``): every ``starlette...`` import gets hasten's module
(``hasten._served_as``), in a venv where the real Starlette is not installed at all. Which
tests pass on Starlette itself is recorded once per pinned version in ``compat/reference/``
(``--reference`` runs Starlette's side and writes the record), so that CI runs hasten's side
only.

A test counts where it passes on Starlette; the tests on asyncio are the measure, each test's
copy on trio (anyio's ``[trio]`` parameter) is counted on a line of its own, and a test module
that imports a private part of Starlette is counted apart (``compat/suite.py``'s rule, as for
FastAPI's suite). It prints a table by test module; ``--check`` fails below the ``starlette``
floors in ``compat/floor.json`` (``--record`` writes them, and the table to
``compat/RESULTS.md``), ``--causes`` groups what fails by its first error.

    python compat/starlette_suite.py [--check] [--record] [--reference] [--only test_routing]
                                     [--failures] [--causes]
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import (  # noqa: E402
    CACHE,
    Pin,
    Run,
    arguments,
    ask,
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
from suite import module_of, private_modules  # noqa: E402

# The release whose tests run (scripts/lock reads its version here), and its sdist's hash.
STARLETTE_VERSION = "1.10.0"
SDIST_SHA256 = "b8399098d4c1e3522734f7235dc79b1fc967f96cf139c81e0fa30479e0685f9b"
STARLETTE = Pin("starlette", STARLETTE_VERSION, SDIST_SHA256)
# Each side's venv, and the lock it is installed from (scripts/lock makes both from
# starlette-requirements.txt, what Starlette's tests import beside the framework).
REFERENCE_VENV, STARLETTE_LOCK = CACHE / "venv-starlette", HERE / "starlette.lock"
HASTEN_VENV, HASTEN_LOCK = CACHE / "venv-starlette-hasten", HERE / "starlette-hasten.lock"
# Where in RESULTS.md `--record` writes its tables.
TABLES_START = "<!-- starlette tables: compat/starlette_suite.py --record -->"
TABLES_END = "<!-- end of starlette tables -->"
# What of the sdist is unpacked: the tests, and the pyproject that holds their pytest settings.
UNPACKED = ("tests", "pyproject.toml")
COPIED = ("tests",)
# Only the plugins Starlette's tests use (anyio's runs each async test on asyncio and on trio),
# and the runner's: both cores, a time limit per test (Starlette's slowest takes 2 s on a loaded
# machine; a test that waits for what hasten never sends would hold a worker), no cache, and
# Python's own tracebacks (pytest's, which parse each frame's source again, end the session on
# Python 3.11 after a deep RecursionError: "AST constructor recursion depth mismatch").
PLUGINS = ("-p", "xdist.plugin", "-p", "pytest_timeout", "-p", "anyio.pytest_plugin")
RUNNER = ("-n", "2", "--timeout", "5", "--tb=native", "-p", "no:cacheprovider")
# hasten's side: the switch, as a user's test run turns it on.
SWITCH = ("-p", "hasten.testing.plugin", "--as-fastapi")
# The floors this runner holds in floor.json (its "starlette" entries, beside FastAPI's).
FLOORS = "starlette"
PUBLIC, TRIO, PRIVATE = "asyncio", "trio", "private"


@dataclass
class Module:
    """One test module's counts, of its tests that pass on Starlette."""

    private: bool
    asyncio_total: int = 0
    asyncio_passed: int = 0
    trio_total: int = 0
    trio_passed: int = 0
    failures: list[str] = field(default_factory=list)


def pytest_settings(source: Path, *, hasten: bool) -> str:
    """Starlette's own pytest settings (its pyproject's), as a pytest.ini.

    On hasten's side a warning filter that names a class of Starlette's keeps its message and
    drops the class: pytest resolves those classes while it loads its plugins, before hasten's
    plugin turns the switch on, and the real Starlette is not there to be imported.
    """
    table = tomllib.loads((source / "pyproject.toml").read_text())["tool"]["pytest"]
    settings = dict(table["ini_options"])
    if hasten:
        filters = settings.get("filterwarnings", [])
        settings["filterwarnings"] = [_without_starlette_class(line) for line in filters]
    lines = ["[pytest]"]
    for key, value in settings.items():
        if isinstance(value, list):
            lines.append(f"{key} =" + "".join(f"\n    {item}" for item in value))
        else:
            lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value}")
    return "\n".join(lines) + "\n"


def _without_starlette_class(line: str) -> str:
    """``action:message:category...`` without its category where that is Starlette's."""
    action, message, category, *rest = [*line.split(":"), "", ""]
    if category.strip().startswith("starlette."):
        return ":".join([action, message, "", *rest]).rstrip(":")
    return line


def units(tree: Path, only: list[str]) -> list[str]:
    """Each test module of Starlette's ``tests/``, in order; with ``only``, those whose path
    holds one of its strings."""
    found = sorted(
        path.relative_to(tree).as_posix() for path in (tree / "tests").rglob("test_*.py")
    )
    return [unit for unit in found if not only or any(part in unit for part in only)]


def _unit_of(node: str) -> str:
    return module_of(node).replace(".", "/") + ".py"


def is_trio(node: str) -> bool:
    """Whether ``node`` is a test's copy on trio (anyio's backend parameter)."""
    parameters = node.partition("[")[2].removesuffix("]")
    return "trio" in parameters.split("-")


def run_suite(python: Path, tree: Path, targets: list[str], *, hasten: bool) -> Run:
    options = (*PLUGINS, *RUNNER, *(SWITCH if hasten else ()))
    return run_tests(python, tree, targets, options, _unit_of)


def hasten_python() -> Path:
    """A venv of hasten from this checkout, with what Starlette's tests import and without
    Starlette: a test that passes has passed on hasten."""
    if re.search(r"^starlette==", HASTEN_LOCK.read_text(), re.M):
        raise SystemExit(f"compat: {HASTEN_LOCK.name} installs Starlette: take it out")
    return locked_venv(HASTEN_VENV, HASTEN_LOCK, checkout=True)


def record_reference(source: Path) -> None:
    """Run Starlette's side (every test) and record which pass."""
    tree = fresh_tree(source, "starlette", COPIED, pytest_settings(source, hasten=False))
    python = locked_venv(REFERENCE_VENV, STARLETTE_LOCK)
    version = ask(python, "import starlette; print(starlette.__version__)")
    if version != STARLETTE_VERSION:
        raise SystemExit(f"compat: {STARLETTE_LOCK.name} installs Starlette {version}")
    outcomes = run_suite(python, tree, units(tree, []), hasten=False).outcomes
    passing = {node for node, outcome in outcomes.items() if outcome.passed}
    STARLETTE.save_reference(passing)
    log(f"recorded Starlette {STARLETTE_VERSION}: {len(passing)} of {len(outcomes)} tests pass")


def tally(passing: set[str], run: Run, private: set[str]) -> dict[str, Module]:
    """Count, by test module, the tests that pass on Starlette and whether they pass here."""
    modules: dict[str, Module] = {}
    for node in sorted(passing):
        name = module_of(node)
        module = modules.setdefault(name, Module(private=name in private))
        why = run.why(node)
        if is_trio(node):
            module.trio_total += 1
            module.trio_passed += why is None
        else:
            module.asyncio_total += 1
            module.asyncio_passed += why is None
            if why is not None:
                module.failures.append(f"{node}: {why}")
    return modules


def _sums(modules: list[Module]) -> tuple[int, int, int, int]:
    return (
        sum(module.asyncio_passed for module in modules),
        sum(module.asyncio_total for module in modules),
        sum(module.trio_passed for module in modules),
        sum(module.trio_total for module in modules),
    )


def totals(modules: dict[str, Module]) -> dict[str, float]:
    """The rates the floor holds: Starlette's public API on asyncio, its copies on trio, and the
    private modules' tests on asyncio."""
    public = _sums([module for module in modules.values() if not module.private])
    private = _sums([module for module in modules.values() if module.private])
    return {
        PUBLIC: rate(public[0], public[1]),
        TRIO: rate(public[2], public[3]),
        PRIVATE: rate(private[0], private[1]),
    }


def render(modules: dict[str, Module], seconds: float) -> str:
    """The table by module, the public API's first and the private modules' apart."""
    rows = [f"Starlette {STARLETTE_VERSION}'s test suite on hasten ({seconds:.0f} s)", ""]
    rows += ["| test module | on asyncio | their copies on trio |", "| --- | --: | --: |"]
    for private in (False, True):
        chosen = {name: module for name, module in modules.items() if module.private == private}
        for name in sorted(chosen):
            module = chosen[name]
            rows.append(
                f"| {_unit_of(name).removeprefix('tests/')} "
                f"| {module.asyncio_passed}/{module.asyncio_total}"
                f" | {module.trio_passed}/{module.trio_total} |"
            )
        passed, total, trio_passed, trio_total = _sums(list(chosen.values()))
        what = "private modules" if private else "public API"
        share = f" ({rate(passed, total):.1%})" if total else ""
        rows.append(f"| **{what}** | **{passed}/{total}{share}** | {trio_passed}/{trio_total} |")
    rates = totals(modules)
    public = _sums([module for module in modules.values() if not module.private])
    rows += [
        "",
        f"On asyncio, **{public[0]}/{public[1]} ({rates[PUBLIC]:.1%})** of the tests of "
        f"Starlette's public API that pass on Starlette {STARLETTE_VERSION} pass on hasten; "
        f"on trio, {public[2]}/{public[3]} ({rates[TRIO]:.1%}).",
    ]
    return "\n".join(rows)


# What a failing test's first error line says is missing, most precise first: the cause the
# test is counted under.
CAUSES = (
    (r"No module named '([\w.]+)'", "no module {0}"),
    (r"cannot import name '(\w+)' from '([\w.]+)'", "no name {1}.{0}"),
    (r"module '([\w.]+)' has no attribute '(\w+)'", "no name {0}.{1}"),
    (r"type object '(\w+)' has no attribute '(\w+)'", "no attribute {0}.{1}"),
    (r"'(\w+)' object has no attribute '(\w+)'", "no attribute {0}.{1}"),
    (r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'", "{0}() takes no {1}="),
    (r"([\w.]+)\(\) missing \d+ required positional arguments?: (.*)", "{0}() wants {1}"),
    (r"([\w.]+)\(\) takes (.*)", "{0}() takes {1}"),
)


def cause_of(why: str) -> str:
    """The cause of a failure, read from its first error line: what is missing, where it says;
    else the line itself, addresses left out."""
    for pattern, cause in CAUSES:
        found = re.search(pattern, why)
        if found:
            return cause.format(*found.groups())
    line = re.sub(r"0x[0-9a-f]+", "0x…", why.removeprefix("not collected: "))
    return line[:140]


def _served(why: str) -> str:
    """``why`` in Starlette's module names (hasten serves ``starlette.x`` from
    ``hasten._served_as.starlette.x``), without the served module's path."""
    return re.sub(r" \(/[^)]*\)", "", why.replace("hasten._served_as.", ""))


def causes(modules: dict[str, Module]) -> str:
    """The public API's failing tests on asyncio, grouped by cause, most tests lost first."""
    counted = Counter(
        cause_of(_served(failure.split(": ", 1)[1]))
        for module in modules.values()
        if not module.private
        for failure in module.failures
    )
    rows = ["| tests lost | cause (the first error line) |", "| --: | --- |"]
    rows += [f"| {count} | {cause} |" for cause, count in counted.most_common()]
    return "\n".join(rows)


# Run in hasten's venv, the switch on: each import statement it is given, and the first line
# of the error it raises, for those that fail.
PROBE = """
import json, sys
import hasten.as_fastapi
failed = {}
for statement in json.load(sys.stdin):
    try:
        exec(statement, {})
    except Exception as error:
        failed[statement] = f"{type(error).__name__}: {error}".splitlines()[0]
json.dump(failed, sys.stdout)
"""


def imports_of(tree: Path) -> dict[str, set[str]]:
    """Each import of one of Starlette's names in its tests (``from starlette.routing import
    Host``, ``import starlette.x``), at any depth, and the test modules that make it: the
    helpers' (``conftest.py``, ``types.py``) count for every test module."""
    found: dict[str, set[str]] = defaultdict(set)
    paths = sorted((tree / "tests").rglob("*.py"))
    tests = {".".join(path.relative_to(tree).with_suffix("").parts) for path in paths}
    tests = {name for name in tests if name.rpartition(".")[2].startswith("test_")}
    for path in paths:
        name = ".".join(path.relative_to(tree).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("starlette"):
                statements = [f"from {node.module} import {alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                statements = [
                    f"import {alias.name}"
                    for alias in node.names
                    if alias.name.partition(".")[0] == "starlette"
                ]
            else:
                continue
            for statement in statements:
                found[statement] |= {name} if name in tests else tests
    return found


def missing_imports(python: Path, tree: Path, modules: dict[str, Module]) -> str:
    """Every import of Starlette's names in its tests that fails on hasten, with the public
    API's tests on asyncio in the modules that make it (a module whose first import fails
    shows only that one among the causes above)."""
    imports = imports_of(tree)
    failed: dict[str, str] = json.loads(
        subprocess.run(
            [str(python), "-c", PROBE],
            input=json.dumps(sorted(imports)),
            check=True,
            capture_output=True,
            text=True,
            cwd=tree,
        ).stdout
    )
    lost = {
        statement: sum(
            modules[name].asyncio_total
            for name in imports[statement]
            if name in modules and not modules[name].private
        )
        for statement in failed
    }
    rows = ["| tests in the modules that import it | import | error |", "| --: | --- | --- |"]
    for statement in sorted(failed, key=lambda statement: (-lost[statement], statement)):
        error = _served(failed[statement]).split(": hasten serves")[0][:100]
        rows.append(f"| {lost[statement]} | `{statement}` | {error} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n\n")[0], "Starlette")
    parser.add_argument(
        "--causes", action="store_true", help="group the failures by cause, list what is missing"
    )
    options = parser.parse_args(argv)
    started = time.monotonic()
    source = unpack(STARLETTE, UNPACKED)
    if options.reference:
        record_reference(source)
    passing = set(STARLETTE.load_reference()["passing"])
    tree = fresh_tree(source, "starlette-hasten", COPIED, pytest_settings(source, hasten=True))
    targets = units(tree, options.only)
    python = hasten_python()
    run = run_suite(python, tree, targets, hasten=True)
    selected = {node for node in passing if _unit_of(node) in targets}
    modules = tally(selected, run, private_modules(source))
    tables = render(modules, time.monotonic() - started)
    print(tables)
    if options.failures:
        for name in sorted(modules):
            print("\n".join(f"  {failure}" for failure in modules[name].failures))
    if options.causes:
        print(f"\nWhat fails, by cause:\n\n{causes(modules)}")
        imports = missing_imports(python, tree, modules)
        print(f"\nWhat Starlette's tests import that hasten does not serve:\n\n{imports}")
    rates = totals(modules)
    if options.record and not options.only:
        record_floor(rates, FLOORS)
        write_section(tables, TABLES_START, TABLES_END)
    return check_floor(rates, FLOORS) if options.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
