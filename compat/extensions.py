"""FastAPI's extensions, as installed, run by their own test suites on hasten.

Each extension in ``EXTENSIONS`` is pinned to a PyPI release and installed from a lock file
(``compat/ext/NAME.lock``: the release, what its tests import, FastAPI 0.165.0 and Starlette
1.10.0 as its dependencies, and hasten's own). Its tests come from its sdist, where the sdist
ships them (downloaded at run time, sha256 checked), or else from its repository at the tag of
that release: a read-only git snapshot, ``--mirror DIR/owner+name/repo``, as the search tool's
``fetch`` lays them out (GitHub cannot be reached from here or from CI). No extension's code or
tests are kept in this repository.

Nothing of the extension is touched: its package as pip installed it, its tests as released.
FastAPI's side, which of its tests pass on FastAPI and Starlette, changes only with the pin and
is recorded in ``compat/reference/ext-NAME-VERSION.json.gz`` (``--reference`` runs it). hasten's
side runs the same tests in the same venv with ``-p hasten.testing.plugin --as-fastapi``: every
``fastapi`` and ``starlette`` import is served by hasten from this checkout, and the real
packages, installed as the extension's dependencies, are never imported. Of the tests that pass
on FastAPI, it counts how many pass on hasten.

    python compat/extensions.py [--only NAME] [--sdists] [--failures] [--check] [--record]
                                [--reference] [--mirror DIR]

``--failures`` lists each test lost with its first line of error, then the causes, the tests
grouped by that line, most tests lost first. ``--sdists`` runs only the extensions whose tests
come from PyPI (what CI can run: ``scripts/test``). ``--check`` fails below ``compat/floor.json``;
``--record`` writes the counts there and into ``compat/RESULTS.md``, with hasten before the switch
(main at ``BEFORE``, where ``fastapi`` and ``starlette`` cannot be imported on hasten) beside them.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from harness import (  # noqa: E402
    CACHE,
    FLOOR,
    RESULTS,
    Outcome,
    download,
    locked_venv,
    log,
    parse_report,
)
from run import BLOCKER, FASTAPI_VERSION  # noqa: E402

from apps import by_function  # noqa: E402

# Every extension runs on FastAPI and Starlette at these versions (scripts/lock pins them).
STARLETTE_VERSION = "1.10.0"
MIRROR = Path("/work/.mirror")
WORK = CACHE / "ext"
# hasten before the switch: main as it was when FastAPI's names (FastAPI, APIRouter) came, the
# commit before `fastapi` and `starlette` could be served by hasten.
BEFORE = "8785440"
# Where in RESULTS.md `--record` writes its table.
TABLE_START, TABLE_END = (
    "<!-- extensions: compat/extensions.py --record -->",
    "<!-- end of extensions -->",
)
# Where a side's outcomes hold the error that ended its session before any test ran.
SESSION = "(session)"
# hasten's side: its pytest plugin, with the switch on.
SWITCH = ("-p", "hasten.testing.plugin", "--as-fastapi")
# Both sides: a test that hangs is failed, not the run (pytest-timeout, in every lock, loaded
# with the venv's other plugins).
TIMEOUT = ("--timeout=60",)


@dataclass(frozen=True)
class Extension:
    """One extension: its pinned release, where its tests come from, how they run."""

    project: str  # its name on PyPI
    version: str
    # Where its tests come from: its sdist (filename and sha256), or else its repository
    # (owner/name) at the tag of the release.
    sdist: str = ""
    sha256: str = ""
    repository: str = ""
    tag: str = ""
    # What of the source is copied: its tests and its pytest settings.
    copied: tuple[str, ...] = ("tests", "pyproject.toml")
    tests: tuple[str, ...] = ("tests",)
    config: str = "pyproject.toml"  # its pytest settings, in the copy
    options: tuple[str, ...] = ()  # beyond its settings, on both sides
    # Empty folders its tests expect where its sdist leaves them out (nothing of theirs in them).
    folders: tuple[str, ...] = ()
    what: str = ""  # what it is, for the table

    @property
    def from_pypi(self) -> bool:
        return bool(self.sdist)

    @property
    def source(self) -> str:
        if self.from_pypi:
            return f"sdist {self.sdist}"
        return f"{self.repository} at {self.tag}"

    @property
    def lock(self) -> Path:
        return HERE / "ext" / f"{self.project}.lock"

    @property
    def reference(self) -> Path:
        return HERE / "reference" / f"ext-{self.project}-{self.version}.json.gz"


EXTENSIONS: dict[str, Extension] = {
    extension.project: extension
    for extension in (
        Extension(
            "prometheus-fastapi-instrumentator",
            "8.0.2",
            repository="trallnag/prometheus-fastapi-instrumentator",
            tag="v8.0.2",
            what="Prometheus metrics per route template (middleware, `/metrics`)",
        ),
        Extension(
            "slowapi",
            "0.1.9",
            repository="laurentS/slowapi",
            tag="v0.1.9",
            what="rate limits (decorator and middleware, on `limits`)",
        ),
        Extension(
            "sqladmin",
            "0.24.0",
            repository="aminalaee/sqladmin",
            tag="0.24.0",
            what="an admin site for SQLAlchemy models (a mounted Starlette app, Jinja2, sessions)",
        ),
        Extension(
            "starlette-context",
            "0.5.1",
            repository="tomwojcik/starlette-context",
            tag="v0.5.1",
            what="request-scoped context (raw ASGI and `BaseHTTPMiddleware`)",
        ),
        Extension(
            "asgi-correlation-id",
            "4.3.4",
            repository="snok/asgi-correlation-id",
            tag="v4.3.4",
            copied=("tests", "pyproject.toml", "setup.cfg"),
            config="setup.cfg",
            what="a request id in a header and in the logs (raw ASGI middleware; Celery, Sentry)",
        ),
        Extension(
            "sse-starlette",
            "3.7.0",
            sdist="sse_starlette-3.7.0.tar.gz",
            sha256="326416da2ab52e9a41b3f409d3ff897eda45aa68c9f3b7b17d0913aab8d219c3",
            what="Server-Sent Events responses (`EventSourceResponse`)",
        ),
        Extension(
            "starlette-exporter",
            "0.24.0",
            sdist="starlette_exporter-0.24.0.tar.gz",
            sha256="c09cb9be59d3d43f69d717c0108b90858ff226f33431493033803f8b7d3dec78",
            copied=("tests",),
            config="",
            # Its test app mounts StaticFiles(directory="tests/static"), which must exist: the
            # two tests that fetch a file from it fail on FastAPI too, and do not count.
            folders=("tests/static",),
            what="Prometheus metrics middleware (route templates through `Route.matches`)",
        ),
        Extension(
            "sentry-sdk",
            "2.75.0",
            sdist="sentry_sdk-2.75.0.tar.gz",
            sha256="c38ac2d4b2435c11da821e173bb9d9088c98f41ae92f559ce0e424170a8e1a29",
            # Its FastAPI and Starlette integrations' tests, with the helpers they import.
            tests=("tests/integrations/starlette", "tests/integrations/fastapi"),
            # Its settings' addopts measure coverage (pytest-cov); the rest is kept.
            options=("-o", "addopts=-rfEs --tb=short"),
            what="Sentry's Starlette and FastAPI integrations (errors, transactions by route)",
        ),
    )
}


@dataclass
class Result:
    """One extension's tests on one side of hasten (now, or before the switch)."""

    passed: int
    total: int
    lost: dict[str, str]  # each test that passes on FastAPI and not here, with why

    @property
    def rate(self) -> float:
        return round(self.passed / self.total, 4) if self.total else 0.0


def source_tree(extension: Extension, mirror: Path) -> Path:
    """The extension's tests and settings, as released, unpacked once."""
    source = WORK / extension.project / f"source-{extension.version}"
    if source.is_dir():
        return source
    if extension.from_pypi:
        archive = download(extension.project, extension.sdist, extension.sha256)
        prefix = extension.sdist.removesuffix(".tar.gz") + "/"
        with tarfile.open(archive) as tar:
            members = []
            for member in tar.getmembers():
                inside = member.name.removeprefix(prefix)
                if inside.split("/")[0] in extension.copied:
                    member.name = inside
                    members.append(member)
            tar.extractall(source.with_suffix(".part"), members=members, filter="data")
    else:
        git = mirror / extension.repository.replace("/", "+") / "repo"
        if not git.is_dir():
            raise SystemExit(
                f"extensions: {extension.project}'s tests come from its repository, and "
                f"{git} is not there: fetch {extension.repository} (or give --mirror)"
            )
        archive_of = ["git", "--git-dir", str(git), "archive", "--format=tar", extension.tag]
        done = subprocess.run([*archive_of, *extension.copied], check=True, capture_output=True)
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
            tar.extractall(source.with_suffix(".part"), filter="data")
    source.with_suffix(".part").rename(source)
    return source


def hasten_before() -> Path:
    """hasten's source at ``BEFORE``, exported once from this checkout's history."""
    source = WORK / f"hasten-{BEFORE}"
    if not (source / "src").is_dir():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", BEFORE, "src"],
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(source, filter="data")
        # On hasten at that commit `fastapi` and `starlette` can be imported from nowhere but
        # the real packages: those are blocked, as compat/run.py blocked them then.
        (source / "blocker").mkdir()
        (source / "blocker" / "sitecustomize.py").write_text(BLOCKER)
    return source


def run_side(extension: Extension, source: Path, side: str) -> dict[str, Outcome]:
    """The extension's tests on one side: ``fastapi``, ``hasten`` (this checkout, switch on)
    or ``before`` (hasten at ``BEFORE``); each test's outcome by node id, the errors that
    kept a module's tests from being collected under the module's path."""
    tree = WORK / extension.project / side
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source, tree)
    for folder in extension.folders:
        (tree / folder).mkdir(parents=True, exist_ok=True)
    python = locked_venv(WORK / extension.project / "venv", extension.lock)
    paths = []
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TIMEOUT]
    command += ["--continue-on-collection-errors"]
    if side == "hasten":
        paths = [str(ROOT / "src")]
        command += SWITCH
    elif side == "before":
        before = hasten_before()
        paths = [str(before / "blocker"), str(before / "src")]
    config = tree / extension.config if extension.config else Path(os.devnull)
    report = tree / "report.xml"
    command += ["-c", str(config), f"--rootdir={tree}", *extension.options]
    command += [f"--junitxml={report}", *extension.tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": os.pathsep.join(paths)}
    env.pop("HASTEN_AS_FASTAPI", None)
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=tree, env=env, capture_output=True, text=True, check=False, timeout=1800
    )
    log(f"{extension.project} on {side}: pytest took {time.monotonic() - started:.0f} s")
    if not report.exists():
        # The session ended before any test (a conftest that does not import): every test
        # is lost to that error, its last line.
        why = error_of(done.stdout + done.stderr) or "pytest wrote no report"
        log(f"{extension.project} on {side}: no report: {why}")
        return {SESSION: Outcome(False, why)}
    outcomes = parse_report(report, prefix="")
    outcomes.update(collection_errors(report))
    return outcomes


def collection_errors(report: Path) -> dict[str, Outcome]:
    """The modules whose tests were not collected, by path (``tests/test_x.py``), each with
    its error (the report's message only says that collection failed)."""
    found = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        error = case.find("error")
        if case.get("classname") or error is None:
            continue
        module = case.get("name", "").replace(".", "/") + ".py"
        found[module] = Outcome(False, error_of(error.text or "") or error.get("message", ""))
    return found


def error_of(traceback: str) -> str:
    """A traceback's error, as pytest prints it (its lines that start with ``E``): the first,
    and the last where one was raised while handling it (an ImportError's fallback import)."""
    lines = [line[1:].strip() for line in traceback.splitlines() if line[:2] == "E "]
    if len(lines) > 1 and lines[0] != lines[-1]:
        return f"{lines[0][:300]}; then {lines[-1][:300]}"
    return lines[0][:300] if lines else ""


def compare(passing: set[str], ours: dict[str, Outcome]) -> Result:
    """Of the tests that pass on FastAPI, those that pass here, and why each other does not.
    A test function's instances are counted, not matched by id (as compat/apps.py does): a
    parameter's id may be made anew each run (a fresh UUID)."""
    lost = {}
    mine_by_function = by_function(ours)
    for function, instances in sorted(
        by_function({node: Outcome(True) for node in passing}).items()
    ):
        mine = mine_by_function.get(function, {})
        short = len(instances) - min(len(instances), sum(o.passed for o in mine.values()))
        if not short:
            continue
        failing = [outcome.message or "failed" for outcome in mine.values() if not outcome.passed]
        if failing:
            why = failing[0]
        else:
            module = ours.get(module_path(function)) or ours.get(SESSION)
            why = f"not collected: {module.message}" if module else "not collected"
        missing = [node for node in instances if not (node in ours and ours[node].passed)]
        lost.update((node, why) for node in (missing or list(instances))[:short])
    return Result(len(passing) - len(lost), len(passing), lost)


def module_path(node: str) -> str:
    """``tests.test_x.TestY::test_z`` -> ``tests/test_x.py``, the path a collection error has
    (a class's name starts with a capital, a module's does not)."""
    parts = node.split("::", maxsplit=1)[0].split(".")
    while parts and parts[-1][:1].isupper():
        parts.pop()
    return "/".join(parts) + ".py"


def load_reference(extension: Extension) -> set[str]:
    if not extension.reference.exists():
        raise SystemExit(
            f"extensions: no record of {extension.project} {extension.version} on FastAPI "
            f"({extension.reference.name}): run `python compat/extensions.py --reference "
            f"--only {extension.project}` once for this pin"
        )
    data = json.loads(gzip.decompress(extension.reference.read_bytes()))
    if data["version"] != extension.version or data["source"] != extension.source:
        raise SystemExit(f"extensions: {extension.reference.name} was recorded from another source")
    return set(data["passing"])


def record_reference(extension: Extension, outcomes: dict[str, Outcome]) -> set[str]:
    if not outcomes:
        raise SystemExit(f"extensions: {extension.project}'s tests did not run on FastAPI")
    passing = {node for node, outcome in outcomes.items() if outcome.passed}
    data = {
        "project": extension.project,
        "version": extension.version,
        "source": extension.source,
        "fastapi": FASTAPI_VERSION,
        "starlette": STARLETTE_VERSION,
        "ran": len(outcomes),
        "passing": sorted(passing),
    }
    text = json.dumps(data, indent=0, sort_keys=True)
    extension.reference.write_bytes(gzip.compress(text.encode(), mtime=0))
    log(f"recorded {extension.project} {extension.version}: {len(passing)} of {len(outcomes)} pass")
    return passing


def causes(lost: dict[str, str]) -> list[tuple[int, str]]:
    """The tests lost, grouped by their first line of error (addresses and ids blanked), most
    tests first."""
    counted = Counter(_cause(why) for why in lost.values())
    return sorted(
        ((count, why) for why, count in counted.items()), key=lambda row: (-row[0], row[1])
    )


def _cause(why: str) -> str:
    """A test's first line of error, as its cause: an error in a fixture as the error itself,
    object addresses blanked."""
    why = re.sub(r'^failed on (?:setup|teardown) with "(.*?)"?$', r"\1", why)
    return re.sub(r"0x[0-9a-f]+", "0x…", why)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], choices=sorted(EXTENSIONS))
    parser.add_argument("--sdists", action="store_true", help="only those tested from PyPI")
    parser.add_argument("--failures", action="store_true", help="each test lost, and the causes")
    parser.add_argument("--check", action="store_true", help="fail below compat/floor.json")
    parser.add_argument("--record", action="store_true", help="write the floor and RESULTS.md")
    parser.add_argument("--reference", action="store_true", help="run FastAPI's side, record it")
    parser.add_argument("--mirror", type=Path, default=MIRROR, help="the repositories' snapshots")
    options = parser.parse_args(argv)
    chosen = [
        extension
        for name, extension in EXTENSIONS.items()
        if (not options.only or name in options.only)
        and (extension.from_pypi or not options.sdists)
    ]
    if options.record and len(chosen) != len(EXTENSIONS):
        raise SystemExit("extensions: --record runs every extension (no --only, no --sdists)")
    started = time.monotonic()
    now: dict[str, Result] = {}
    before: dict[str, Result] = {}
    for extension in chosen:
        source = source_tree(extension, options.mirror)
        if options.reference:
            passing = record_reference(extension, run_side(extension, source, "fastapi"))
        else:
            passing = load_reference(extension)
        now[extension.project] = compare(passing, run_side(extension, source, "hasten"))
        if options.record:
            before[extension.project] = compare(passing, run_side(extension, source, "before"))
    seconds = time.monotonic() - started
    print(render(chosen, now, before, seconds))
    if options.failures:
        print_failures(now)
    floor = json.loads(FLOOR.read_text())
    if options.record:
        # One test under each record: sse-starlette's tests time their own waits (a ping, a
        # send timeout), and one may miss on a loaded 2-core machine without hasten changing.
        floor["extensions"] = {
            name: Result(max(result.passed - 1, 0), result.total, {}).rate
            for name, result in now.items()
        }
        FLOOR.write_text(json.dumps(floor, indent=2) + "\n")
        write_results(render(chosen, now, before, seconds))
    return check(now, floor.get("extensions", {})) if options.check else 0


def print_failures(now: dict[str, Result]) -> None:
    """Each extension's tests lost with why, then grouped by cause."""
    for name, result in now.items():
        print(f"\n{name}: {result.total - result.passed} tests lost")
        print("\n".join(f"  {node}: {why}" for node, why in result.lost.items()))
        print(f"\n{name}: by cause")
        print("\n".join(f"  {count:4d}  {why}" for count, why in causes(result.lost)))


def check(now: dict[str, Result], floor: dict[str, float]) -> int:
    """1 if an extension's rate is below its floor (or it has none), else 0."""
    for name, result in now.items():
        if name not in floor:
            print(f"extensions: {name} has no floor in {FLOOR.name} (--record)")
            return 1
        if result.rate < floor[name]:
            print(f"extensions: {name} passes {result.rate:.4f}, below its floor {floor[name]}")
            return 1
    return 0


def render(
    chosen: list[Extension], now: dict[str, Result], before: dict[str, Result], seconds: float
) -> str:
    """The table: per extension, its tests that pass on FastAPI and how many pass on hasten."""
    # The last commit to hasten's source: what was measured, whatever came after in compat/.
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h, %cs", "--", "src"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    rows = [
        f"FastAPI's extensions, as installed, by their own tests on hasten at {commit} "
        f"({seconds:.0f} s)",
        "",
    ]
    heading = "| extension | what it does | tests from | pass on FastAPI |"
    if before:
        heading += f" on hasten before ({BEFORE}) |"
    rows += [heading + " on hasten |", "| --- | --- | --- | --: |" + " --: |" * (1 + bool(before))]
    for extension in chosen:
        result = now[extension.project]
        where = (
            "PyPI sdist (in CI)" if extension.from_pypi else f"its repository at {extension.tag}"
        )
        row = f"| {extension.project} {extension.version} | {extension.what} | {where} "
        row += f"| {result.total} |"
        if before:
            earlier = before[extension.project]
            row += f" {earlier.passed}/{earlier.total} ({earlier.rate:.1%}) |"
        rows.append(row + f" **{result.passed}/{result.total} ({result.rate:.1%})** |")
    passed = sum(result.passed for result in now.values())
    total = sum(result.total for result in now.values())
    rows += ["", f"All: **{passed}/{total}** of the tests that pass on FastAPI pass on hasten"]
    if before:
        earlier = sum(result.passed for result in before.values())
        rows[-1] += f" ({earlier}/{total} before the switch)"
    rows[-1] += "."
    return "\n".join(rows)


def write_results(table: str) -> None:
    """The table into RESULTS.md, between its markers."""
    page = RESULTS.read_text()
    start, end = page.index(TABLE_START) + len(TABLE_START), page.index(TABLE_END)
    RESULTS.write_text(f"{page[:start]}\n{table}\n{page[end:]}")


if __name__ == "__main__":
    raise SystemExit(main())
