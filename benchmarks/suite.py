"""The side-by-side suite: hasten, the raw apps and the peers, every scenario, into RESULTS.md.

    python benchmarks/suite.py                            # install what is missing, run, report
    python benchmarks/suite.py --only hello json-body     # some scenarios
    python benchmarks/suite.py --report-only              # rebuild RESULTS.md from the JSON

Each scenario is one ``hasten bench --compare`` run of every target, in alternating rounds,
from the peers venv (benchmarks/.venv-peers) so that every server uses the same uvicorn and
httptools. It needs only the standard library: it installs the rest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OVERHEAD_COUNTS = ROOT / "benchmarks" / "overhead-budgets.json"  # and the counts they were set at
PEERS_VENV = ROOT / "benchmarks" / ".venv-peers"
PEERS_PYTHON = PEERS_VENV / "bin" / "python"
REQUIREMENTS = ROOT / "benchmarks" / "requirements-peers.txt"
STAMP_NAME = "hasten-suite.sha256"  # inside the venv: the digest of what it was installed from
DEFAULT_JSON_DIR = ROOT / "benchmarks" / "results"
DEFAULT_OUTPUT = ROOT / "benchmarks" / "RESULTS.md"
VERSIONS_FILE = "versions.json"
PEER_PACKAGES = ("starlette", "fastapi", "pydantic", "litestar", "blacksheep", "msgspec")
# RESULTS.md from the first of these on is written by the other benchmarks (streams.py,
# dependencies.py, ...; the TFB section, last, by benchmarks/tfb/run.py): the report keeps it.
OTHERS_SECTION = "<!-- others: written from the other benchmarks' runs -->"
TFB_SECTION = "<!-- tfb: written by benchmarks/tfb/run.py -->"
STARTUP_SECONDS = 1.7  # a target's start and stop, on average (litestar's 1,000 routes: ~6 s)

# Where a target runs: SERVER/INTERFACE, or SERVER alone when it speaks one interface.
WHERES = ("granian/rsgi", "granian/asgi", "uvicorn")
RSGI_APPS = (("hasten", "hasten_app"), ("raw", "raw_rsgi"))
ASGI_APPS = (
    ("hasten", "hasten_app"),
    ("raw", "raw_asgi"),
    ("starlette", "starlette_app"),
    ("fastapi", "fastapi_app"),
    ("litestar", "litestar_app"),
    ("blacksheep", "blacksheep_app"),
)
# (framework, module in benchmarks.apps, where), in the order of each round.
TARGET_APPS = (
    *((name, module, "granian/rsgi") for name, module in RSGI_APPS),
    *((name, module, where) for where in WHERES[1:] for name, module in ASGI_APPS),
)
TIMES = "\N{MULTIPLICATION SIGN}"
GE, LE = "\N{GREATER-THAN OR EQUAL TO}", "\N{LESS-THAN OR EQUAL TO}"
ORDER = '{"id":{1..10000},"name":"pen","price":1.5,"quantity":2,"tags":["a","b"],"active":true}'


@dataclass(frozen=True, slots=True)
class Scenario:
    """One ``hasten bench`` run: GET ``path`` (or ``request``), the app, fixed connections."""

    name: str
    path: str
    request: str | None = None  # a whole --request spec, for anything but a plain GET
    app: str = "app"
    connections: int | None = None  # None: the suite's --connections

    def bench_args(self) -> list[str]:
        """What to send: ``--path PATH`` or ``--request SPEC``."""
        # A plain GET goes as --path: --request takes a query string's "=" for an option.
        return ["--path", self.path] if self.request is None else ["--request", self.request]

    def describe(self) -> str:
        """The request, and the app when it is not ``app``."""
        text = f"`{self.request or f'GET {self.path}'}`"
        return text if self.app == "app" else f"{text} on `:{self.app}`"


SCENARIOS = (
    Scenario("hello", "/hello"),
    Scenario("path-param", "/items/{1..10000}"),
    Scenario("routes-1000", "/r999/{1..10000}"),
    Scenario("query", "/query?page={1..50}&size=20&ratio=0.5&active=true&q=text"),
    Scenario(
        "json-body",
        "/orders",
        request=f"POST /orders body='{ORDER}' header=content-type:application/json",
    ),
    Scenario("sync", "/sync"),
    Scenario("blocking", "/blocking", connections=100),
    Scenario("middleware", "/hello", app="app_mw"),
)
SCENARIO_NAMES = tuple(scenario.name for scenario in SCENARIOS)
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


class SuiteError(RuntimeError):
    """A step the suite could not take: an install, or a bench run."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How long and how hard each target is measured."""

    duration: float = 2.0
    warmup: float = 1.0
    rounds: int = 3
    connections: int = 64


DEFAULT_SETTINGS = Settings()


def target_specs(scenario: Scenario) -> list[str]:
    """``hasten bench`` targets: ``LABEL=benchmarks.apps.MODULE:APP@WHERE`` for each app."""
    return [
        f"{name}=benchmarks.apps.{module}:{scenario.app}@{where}"
        for name, module, where in TARGET_APPS
    ]


def bench_argv(
    scenario: Scenario,
    settings: Settings,
    json_path: Path,
    *,
    python: str = str(PEERS_PYTHON),
    targets: Sequence[str] | None = None,
    loadgen: str = "wrk",
) -> list[str]:
    """The command line of the scenario's ``hasten bench --compare`` run."""
    return [
        *(python, "-m", "hasten", "bench", "--compare", *(targets or target_specs(scenario))),
        *scenario.bench_args(),
        *("--duration", f"{settings.duration:g}", "--warmup", f"{settings.warmup:g}"),
        *("--rounds", str(settings.rounds), "--workers", "1"),
        *("--connections", str(scenario.connections or settings.connections)),
        *("--loadgen", loadgen, "--json", str(json_path)),
    ]


# ---------------------------------------------------------------- installing what is missing

Run = Callable[[Sequence[str]], None]


def run_command(argv: Sequence[str]) -> None:
    """Print ``argv``, then run it from the repository root; raise SuiteError if it fails."""
    print(f"+ {shlex.join(argv)}", flush=True)
    try:
        subprocess.run(argv, cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SuiteError(f"{shlex.join(argv)} failed: {exc}") from None


def requirements_digest() -> str:
    """What the peers venv is installed from: the pinned peers and hasten's own pyproject."""
    digest = hashlib.sha256()
    for path in (REQUIREMENTS, ROOT / "pyproject.toml"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_peers(venv: Path = PEERS_VENV, run: Run = run_command) -> None:
    """Create or refresh the peers venv when it is missing or its requirements changed."""
    python, stamp = venv / "bin" / "python", venv / STAMP_NAME
    digest = requirements_digest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    run([str(python), "-m", "pip", "install", "--quiet", "-e", ".[dev]", "-r", str(REQUIREMENTS)])
    stamp.write_text(digest + "\n")


def ensure_wrk(run: Run = run_command) -> None:
    """Install wrk with apt-get when it is not on PATH."""
    if shutil.which("wrk"):
        return
    print("wrk is not on PATH: installing it with apt-get", flush=True)
    try:
        run(["apt-get", "update"])
        run(["apt-get", "install", "-y", "wrk"])
    except SuiteError as exc:
        raise SuiteError(f"{exc}\ninstall wrk yourself (e.g. apt-get install wrk)") from None


def peer_versions(python: Path = PEERS_PYTHON) -> dict[str, str | None]:
    """The versions of the peer frameworks installed in the peers venv (None: missing)."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "def v(p):\n"
        "    try: return m.version(p)\n"
        "    except m.PackageNotFoundError: return None\n"
        "print(json.dumps({p: v(p) for p in sys.argv[1:]}))"
    )
    argv = [str(python), "-c", code, *PEER_PACKAGES]
    try:
        output = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SuiteError(f"cannot read the peers' versions: {exc}") from None
    found: dict[str, str | None] = json.loads(output)
    return found


# ---------------------------------------------------------------- running


def estimate_minutes(scenarios: Sequence[Scenario], settings: Settings) -> float:
    """Roughly how long the scenarios take."""
    per_target = settings.duration + settings.warmup + STARTUP_SECONDS
    return len(scenarios) * len(TARGET_APPS) * settings.rounds * per_target / 60


def run_suite(scenarios: Sequence[Scenario], settings: Settings, json_dir: Path) -> list[str]:
    """Install what is missing, run each scenario into ``json_dir``; return those that failed."""
    ensure_peers()
    ensure_wrk()
    json_dir.mkdir(parents=True, exist_ok=True)
    (json_dir / VERSIONS_FILE).write_text(json.dumps(peer_versions(), indent=2) + "\n")
    minutes = estimate_minutes(scenarios, settings)
    print(f"{len(scenarios)} scenarios x {len(TARGET_APPS)} targets: about {minutes:.0f} min")
    failed = []
    for number, scenario in enumerate(scenarios, 1):
        path = json_dir / f"{scenario.name}.json"
        path.unlink(missing_ok=True)  # a failed run must not leave an older result behind
        print(f"\n== {scenario.name} ({number}/{len(scenarios)}) ==", flush=True)
        try:
            run_command(bench_argv(scenario, settings, path))
        except SuiteError as exc:
            print(exc, file=sys.stderr)
            failed.append(scenario.name)
    return failed


# ---------------------------------------------------------------- reading the JSON


@dataclass(frozen=True, slots=True)
class Row:
    """One target's medians in one scenario."""

    framework: str
    where: str
    rps: float
    p99_ms: float | None
    cpu: float | None  # the server's CPU seconds per 10k requests
    errors: float
    non_2xx: float
    client_share: float

    @property
    def label(self) -> str:
        """``framework@where``, e.g. ``starlette@uvicorn``."""
        return f"{self.framework}@{self.where}"

    @property
    def failed(self) -> bool:
        """Whether some requests failed: then its figures measure something else."""
        return bool(self.errors or self.non_2xx)


Results = Mapping[str, Sequence[Row]]  # scenario name -> its rows


def load_documents(json_dir: Path, names: Sequence[str] = SCENARIO_NAMES) -> dict[str, Any]:
    """The ``hasten bench`` JSON of each named scenario found in ``json_dir``, in suite order."""
    found = {}
    for name in names:
        path = json_dir / f"{name}.json"
        if path.exists():
            found[name] = json.loads(path.read_text())
    return found


def rows_of(document: Mapping[str, Any]) -> list[Row]:
    """The document's targets as rows; the framework is the label up to its ``@``."""
    rows = []
    for target in document["targets"]:
        median = target["median"]
        rows.append(
            Row(
                framework=target["label"].partition("@")[0],
                where=where_of(target),
                rps=median["rps"],
                p99_ms=median["p99_ms"],
                cpu=median["cpu_s_per_10k"],
                errors=median["errors"] or 0.0,
                non_2xx=median["non_2xx"] or 0.0,
                client_share=median["client_share"] or 0.0,
            )
        )
    return rows


def where_of(target: Mapping[str, Any]) -> str:
    """``granian/rsgi``, ``granian/asgi``, or ``uvicorn`` (it speaks ASGI only)."""
    server: str = target["server"]
    return server if server == "uvicorn" else f"{server}/{target['interface']}"


def find(rows: Sequence[Row], framework: str, where: str) -> Row | None:
    """The row of ``framework`` on ``where``, if measured."""
    return next((row for row in rows if (row.framework, row.where) == (framework, where)), None)


def relative(
    results: Results, scenario: str, where: str, framework: str, other: str, *, metric: str = "rps"
) -> float | None:
    """``framework``'s ``metric`` over ``other``'s, in one scenario on one server/interface."""
    rows = results.get(scenario, ())
    mine, theirs = find(rows, framework, where), find(rows, other, where)
    if mine is None or theirs is None:
        return None
    numerator, denominator = getattr(mine, metric), getattr(theirs, metric)
    if numerator is None or not denominator:
        return None
    ratio: float = numerator / denominator
    return ratio


def any_failed(rows: Sequence[Row], where: str, *frameworks: str) -> bool:
    """Whether a row of ``frameworks`` on ``where`` had failed requests."""
    return any(row.where == where and row.framework in frameworks and row.failed for row in rows)


def routes_ratio(results: Results, framework: str, where: str) -> float | None:
    """routes-1000 req/s over path-param req/s, for one target."""
    last = find(results.get("routes-1000", ()), framework, where)
    single = find(results.get("path-param", ()), framework, where)
    return None if last is None or single is None or not single.rps else last.rps / single.rps


# ---------------------------------------------------------------- the targets of the issue


@dataclass(frozen=True, slots=True)
class Check:
    """One target of the issue on one server/interface, and the measured figure."""

    goal: str
    where: str
    measured: float | None
    limit: float
    at_most: bool = False  # the figure must not exceed the limit (else: reach it)
    unit: str = "x"  # "x": a ratio; else the unit of a figure
    failed: bool = False  # some of the requests behind the figure failed

    @property
    def status(self) -> str:
        """MET, NOT MET, NOT MEASURED, or NOT VALID (failed requests)."""
        if self.measured is None:
            return "NOT MEASURED"
        if self.failed:
            return "NOT VALID"
        met = self.measured <= self.limit if self.at_most else self.measured >= self.limit
        return "MET" if met else "NOT MET"

    def figure(self) -> str:
        """The measured figure, as the report shows it."""
        if self.measured is None:
            return "-"
        if self.unit == "x":
            return times(self.measured)
        return f"{self.measured:,.0f} {self.unit}"


def evaluate(results: Results) -> list[Check]:
    """Every target of the issue, checked against the measured medians."""
    return [
        *_hello_checks(results),
        *_routes_checks(results),
        *_peer_checks(results, "json-body", "fastapi", 3.0),
        *_peer_checks(results, "json-body", "litestar", 1.5),
        *_peer_checks(results, "sync", "starlette", 2.0),
        *_blocking_checks(results),
        *_request_path_checks(results),
    ]


def _hello_checks(results: Results) -> list[Check]:
    rows = results.get("hello", ())

    def versus_raw(goal: str, where: str, limit: float, metric: str = "rps") -> Check:
        return Check(
            goal,
            where,
            relative(results, "hello", where, "hasten", "raw", metric=metric),
            limit,
            at_most=metric == "cpu",
            failed=any_failed(rows, where, "hasten", "raw"),
        )

    return [
        versus_raw(f"hello: req/s {GE} 0.90 {TIMES} raw RSGI", "granian/rsgi", 0.90),
        versus_raw(
            f"hello: CPU per request {LE} 1.15 {TIMES} raw RSGI", "granian/rsgi", 1.15, "cpu"
        ),
        versus_raw(f"hello: req/s {GE} 0.85 {TIMES} raw ASGI", "uvicorn", 0.85),
    ]


def _routes_checks(results: Results) -> list[Check]:
    goal = f"1,000 routes: last route's req/s {GE} 0.97 {TIMES} one parameter's"
    rows = [*results.get("routes-1000", ()), *results.get("path-param", ())]
    return [
        Check(
            goal,
            where,
            routes_ratio(results, "hasten", where),
            0.97,
            failed=any_failed(rows, where, "hasten"),
        )
        for where in WHERES
    ]


def _peer_checks(results: Results, scenario: str, peer: str, limit: float) -> list[Check]:
    goal = f"{scenario}: req/s {GE} {limit:g} {TIMES} {peer}"
    rows = results.get(scenario, ())
    return [
        Check(
            goal,
            where,
            relative(results, scenario, where, "hasten", peer),
            limit,
            failed=any_failed(rows, where, "hasten", peer),
        )
        for where in WHERES[1:]
    ]


def _blocking_checks(results: Results) -> list[Check]:
    connections = BY_NAME["blocking"].connections
    goal = f"blocking sync handler, {connections} connections: {GE} 1,800 req/s"
    rows = results.get("blocking", ())
    return [
        Check(
            goal,
            where,
            None if row is None else row.rps,
            1800,
            unit="req/s",
            failed=row is not None and row.failed,
        )
        for where in WHERES
        for row in [find(rows, "hasten", where)]
    ]


def _request_path_checks(results: Results) -> list[Check]:
    """The request-path issue's targets: against the raw RSGI app, RSGI against Granian's
    ASGI, and the in-process instruction count (``overhead.py``'s baseline)."""
    rsgi = "granian/rsgi"

    def versus_raw(scenario: str, limit: float) -> Check:
        return Check(
            f"{scenario}: req/s {GE} {limit:.2f} {TIMES} raw RSGI",
            rsgi,
            relative(results, scenario, rsgi, "hasten", "raw"),
            limit,
            failed=any_failed(results.get(scenario, ()), rsgi, "hasten", "raw"),
        )

    hello = results.get("hello", ())
    native, asgi = find(hello, "hasten", rsgi), find(hello, "hasten", "granian/asgi")
    counts = json.loads(OVERHEAD_COUNTS.read_text())["instructions_per_request"]
    return [
        versus_raw("path-param", 0.90),
        versus_raw("json-body", 0.85),
        Check(
            f"hello: hasten on RSGI {GE} 1.10 {TIMES} hasten on Granian's ASGI",
            "granian",
            None if native is None or asgi is None or not asgi.rps else native.rps / asgi.rps,
            1.10,
            failed=any_failed(hello, rsgi, "hasten") or any_failed(hello, "granian/asgi", "hasten"),
        ),
        Check(
            f"hello: instructions per request {LE} 1.5 {TIMES} raw RSGI (overhead.py)",
            "in-process",
            counts["hello"] / counts["raw rsgi /hello"],
            1.5,
            at_most=True,
        ),
    ]


# ---------------------------------------------------------------- the markdown


def times(value: float | None) -> str:
    """A ratio, e.g. 1.93 times."""
    return "-" if value is None else f"{TIMES}{value:.2f}"


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    """A markdown table; ``align`` holds ``l`` or ``r`` for each column."""
    rule = ["---" if side == "l" else "--:" for side in align]
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def scenario_table(rows: Sequence[Row]) -> str:
    """target, req/s, p99, CPU s/10k, vs raw and vs peers, for one scenario's rows."""
    header = ("target", "req/s", "p99 ms", "CPU s/10k", "vs raw", "vs peers")
    return markdown_table(header, [_cells(row, rows) for row in rows], "lrrrrl")


def _cells(row: Row, rows: Sequence[Row]) -> list[str]:
    raw = find(rows, "raw", row.where)
    versus_raw = None if raw is None or row is raw or not raw.rps else row.rps / raw.rps
    peers = [
        f"vs {other.framework} {times(row.rps / other.rps)}"
        for other in rows
        if other.where == row.where and other.framework not in ("raw", row.framework) and other.rps
    ]
    return [
        row.label,
        _number(row.rps, 0),
        _number(row.p99_ms, 2),
        _number(row.cpu, 2),
        times(versus_raw),
        ", ".join(peers) or "-",
    ]


def routes_table(results: Results) -> str:
    """For each target: routes-1000 req/s over path-param req/s."""
    lines = []
    for row in results.get("routes-1000", ()):
        single = find(results.get("path-param", ()), row.framework, row.where)
        if single is not None:
            ratio = routes_ratio(results, row.framework, row.where)
            lines.append([row.label, _number(single.rps, 0), _number(row.rps, 0), times(ratio)])
    header = ("target", "path-param req/s", "routes-1000 req/s", "routes-1000 / path-param")
    return markdown_table(header, lines, "lrrr")


def targets_table(checks: Sequence[Check]) -> str:
    """The targets of the issue: goal, server, measured figure, status."""
    lines = [[check.goal, check.where, check.figure(), f"**{check.status}**"] for check in checks]
    return markdown_table(("target", "where", "measured", "status"), lines, "llrl")


def _targets_section(checks: Sequence[Check]) -> str:
    counts = dict.fromkeys(("MET", "NOT MET", "NOT VALID", "NOT MEASURED"), 0)
    for check in checks:
        counts[check.status] += 1
    summary = ", ".join(f"{count} {status.lower()}" for status, count in counts.items() if count)
    if counts["NOT VALID"]:
        summary += " (NOT VALID: some requests behind the figure failed; see the scenario's notes)"
    return f"## Targets\n\nFrom the medians above: {summary}.\n\n{targets_table(checks)}"


def notes(rows: Sequence[Row], loadgen: str) -> list[str]:
    """What makes a row suspect: failures, or a load generator that was the bottleneck."""
    which = "responses >= 400" if loadgen == "wrk" else "non-2xx responses"
    found = []
    for row in rows:
        if row.failed:
            found.append(
                f"- {row.label}: {row.errors:,.0f} errors and {row.non_2xx:,.0f} {which}"
                " (medians): its req/s is suspect."
            )
        if row.client_share >= 0.9:
            found.append(f"- {row.label}: the load generator, not the server, was the bottleneck.")
    return found


def render(documents: Mapping[str, Any], versions: Mapping[str, str | None]) -> str:
    """RESULTS.md for the scenarios' ``hasten bench`` documents."""
    results = {name: rows_of(document) for name, document in documents.items()}
    parts = [_header(documents, versions)]
    for name, document in documents.items():
        parts.append(_scenario_section(name, document, results[name]))
        if name == "routes-1000" and "path-param" in results:
            parts.append(
                "### 1,000 routes against one parameter\n\n"
                "Each target's `GET /r999/{id}` req/s over its `GET /items/{id}` req/s "
                "(the two runs above).\n\n" + routes_table(results)
            )
    parts.append(_targets_section(evaluate(results)))
    return "\n\n".join(parts) + "\n"


def _scenario_section(name: str, document: Mapping[str, Any], rows: Sequence[Row]) -> str:
    settings = document["settings"]
    facts = (
        f"{BY_NAME[name].describe()}; {settings['connections']} connections; "
        f"{document['loadgen']['description']}; {document['date']}"
    )
    section = f"## {name}\n\n{facts}\n\n{scenario_table(rows)}"
    found = notes(rows, document["loadgen"]["name"])
    return section + ("\n\n" + "\n".join(found) if found else "")


def reproduce_command(documents: Mapping[str, Any]) -> str:
    """The suite's command line that measures these documents again."""
    first = next(iter(documents.values()))["settings"]
    connections = next(
        (
            document["settings"]["connections"]
            for name, document in documents.items()
            if BY_NAME[name].connections is None
        ),
        DEFAULT_SETTINGS.connections,
    )
    words = ["python", "benchmarks/suite.py", "--duration", f"{first['duration']:g}"]
    words += ["--warmup", f"{first['warmup']:g}", "--rounds", str(first["rounds"])]
    words += ["--connections", str(connections)]
    if tuple(documents) != SCENARIO_NAMES:
        words += ["--only", *documents]
    return shlex.join(words)


def _header(documents: Mapping[str, Any], versions: Mapping[str, str | None]) -> str:
    first = next(iter(documents.values()))
    dates = sorted({document["date"][:10] for document in documents.values()})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    machine, settings = first["machine"], first["settings"]
    every = {**first["versions"], **versions}
    shown = ", ".join(f"{name} {version or 'not installed'}" for name, version in every.items())
    return "\n".join(
        [
            "# hasten side by side",
            "",
            f"Measured {when} (UTC) by `benchmarks/suite.py`; reproduce with:",
            "",
            f"    {reproduce_command(documents)}",
            "",
            f"- **Machine**: {machine['cores']} cores, {machine['cpu_model']} "
            f"({machine['platform']})",
            f"- **Versions**: {shown}",
            f"- **Settings**: {settings['duration']:g} s per round after {settings['warmup']:g} s"
            f" of warm-up, {_plural(settings['rounds'], 'round')}, {_connections(documents)},"
            f" one worker per server, {first['loadgen']['description']}",
            "- **Read with care**: every figure is the median of alternating rounds (each target"
            f" in turn, round after round) on a noisy {machine['cores']}-core machine where the"
            " load generator and the server share the cores: trust the ratios more than the"
            " absolute req/s. Every app registers its 1,000 numbered routes last, so a router"
            " that tries routes in order (Starlette's and FastAPI's, for two) scans them only"
            " in the routes-1000 scenario.",
            "",
            "Columns: req/s and p99 are medians; CPU s/10k is the server's CPU seconds (its whole"
            " process tree) per 10,000 requests; *vs raw* is req/s over the raw app's on the same"
            " server and interface (raw_rsgi on RSGI, raw_asgi on ASGI); *vs peers* is req/s over"
            " each peer's on the same server and interface.",
        ]
    )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _connections(documents: Mapping[str, Any]) -> str:
    counts = {name: document["settings"]["connections"] for name, document in documents.items()}
    usual = max(set(counts.values()), key=list(counts.values()).count)
    others = [f"{name}: {count}" for name, count in counts.items() if count != usual]
    return f"{usual} connections" + (f" ({', '.join(others)})" if others else "")


def write_report(json_dir: Path, output: Path, names: Sequence[str]) -> bool:
    """Write ``output`` from the JSON in ``json_dir``; False when there is none."""
    documents = load_documents(json_dir, names)
    if not documents:
        return False
    versions_path = json_dir / VERSIONS_FILE
    versions = json.loads(versions_path.read_text()) if versions_path.exists() else {}
    current = output.read_text() if output.exists() else ""
    starts = [current.find(marker) for marker in (OTHERS_SECTION, TFB_SECTION)]
    kept = current[min(start for start in starts if start >= 0) :] if max(starts) >= 0 else ""
    output.write_text(render(documents, versions) + ("\n" + kept if kept else ""))
    return True


# ---------------------------------------------------------------- the command


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The suite's options."""
    defaults = DEFAULT_SETTINGS
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add("--duration", type=float, default=defaults.duration, metavar="S", help="seconds per round")
    add("--warmup", type=float, default=defaults.warmup, metavar="S", help="seconds before each")
    add("--rounds", type=int, default=defaults.rounds, metavar="N", help="rounds per target")
    add(
        "--connections",
        type=int,
        default=defaults.connections,
        metavar="N",
        help="open connections (blocking: always 100)",
    )
    add(
        "--only",
        nargs="+",
        choices=SCENARIO_NAMES,
        metavar="SCENARIO",
        help=f"run and report only these: {', '.join(BY_NAME)}",
    )
    add("--output", type=Path, default=DEFAULT_OUTPUT, metavar="FILE", help="the markdown report")
    add("--json-dir", type=Path, default=DEFAULT_JSON_DIR, metavar="DIR", help="one JSON a run")
    add("--report-only", action="store_true", help="rebuild --output from --json-dir; run nothing")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite (or only report); 0 when every scenario ran and the report was written."""
    args = parse_args(argv)
    names = [name for name in SCENARIO_NAMES if name in (args.only or SCENARIO_NAMES)]
    failures: list[str] = []
    if not args.report_only:
        settings = Settings(args.duration, args.warmup, args.rounds, args.connections)
        try:
            failures = run_suite([BY_NAME[name] for name in names], settings, args.json_dir)
        except SuiteError as exc:
            print(f"suite: error: {exc}", file=sys.stderr)
            return 1
    if not write_report(args.json_dir, args.output, names):
        print(f"suite: error: no results in {args.json_dir}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    if failures:
        print(f"suite: these scenarios failed: {', '.join(failures)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
