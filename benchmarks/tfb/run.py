"""The TFB test types side by side: hasten, raw RSGI and the peers (Starlette, FastAPI,
BlackSheep, Emmett, Falcon).

    python benchmarks/tfb/run.py                                  # every test type, RESULTS.md
    python benchmarks/tfb/run.py --tests json plaintext --duration 3 --rounds 2 --output -

It runs from the peers venv (``benchmarks/.venv-peers``, built or refreshed as
``benchmarks/suite.py`` does), starts PostgreSQL with ``pg.sh`` unless ``DATABASE_URL``
answers already (and stops what it started), checks every implementation with ``verify.py``,
then measures each test type in alternating rounds, every target on 2 Granian workers:

- json, db, queries, fortunes, updates, cached-queries: one ``hasten bench --compare`` each,
  while a sampler here reads, every 0.25 s, the CPU time of the server under load and of
  PostgreSQL's processes: "server cores" and "db cores" are their CPU seconds per second of
  load, which shows where the database, not the framework, sets the pace;
- plaintext: pipelined 16 deep, as TFB sends it, which ``hasten bench`` cannot do: wrk with a
  pipelining script, driven here, in the same alternating rounds.

The results go into the TFB section of ``benchmarks/RESULTS.md`` (or ``--output``) and the
JSON of each run into ``benchmarks/results/tfb-*.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import suite  # noqa: E402

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
JSON_DIR = ROOT / "benchmarks" / "results"
SECTION = suite.TFB_SECTION
TESTS = ("json", "plaintext", "db", "queries", "fortunes", "updates", "cached-queries")
DATABASE_TESTS = TESTS[2:]
PIPELINE = 16
SAMPLE_SECONDS = 0.25
BUSY_CORES = 0.2  # a server using less is starting or idle: its interval is not "under load"


@dataclass(frozen=True, slots=True)
class Spec:
    """One implementation on one server: ``hasten`` on ``granian/rsgi``."""

    name: str
    module: str
    where: str
    # Test types this implementation does not have (it is left out of their tables).
    skips: tuple[str, ...] = ()

    @property
    def label(self) -> str:  # hasten bench labels take letters, digits and . _ + -
        return f"{self.name}.{self.where.replace('/', '.')}"

    @property
    def shown(self) -> str:
        return f"{self.name}@{self.where}"

    def bench_target(self) -> str:
        return f"{self.label}=benchmarks.tfb.{self.module}:app@{self.where}"

    def served(self, workers: int) -> Any:
        """The ``hasten bench`` AppTarget that serves it with ``workers``."""
        from hasten.bench.targets import parse_target

        return parse_target(self.bench_target(), workers=workers)

    def matches(self, cmdline: Sequence[str]) -> bool:
        """Whether ``cmdline`` is this target's server."""
        server, _, interface = self.where.partition("/")
        words = " ".join(cmdline)
        if f"benchmarks.tfb.{self.module}:app" not in cmdline or f"-m {server}" not in words:
            return False
        return not interface or f"--interface {interface}" in words


GRANIAN = (
    Spec("hasten", "app", "granian/rsgi"),
    Spec("raw", "raw_rsgi", "granian/rsgi"),
    Spec("hasten", "app", "granian/asgi"),
    Spec("starlette", "starlette_app", "granian/asgi"),
    Spec("fastapi", "fastapi_app", "granian/asgi"),
    Spec("blacksheep", "blacksheep_app", "granian/asgi"),
    Spec("emmett", "emmett_app", "granian/rsgi"),
    Spec("falcon", "falcon_app", "granian/asgi", skips=DATABASE_TESTS),
)
UVICORN = tuple(
    Spec(name, module, "uvicorn")
    for name, module in (
        ("hasten", "app"),
        ("starlette", "starlette_app"),
        ("fastapi", "fastapi_app"),
        ("blacksheep", "blacksheep_app"),
    )
)
# Each peer, on the server hasten is compared with it on.
PEERS = (
    ("starlette", "granian/asgi"),
    ("fastapi", "granian/asgi"),
    ("blacksheep", "granian/asgi"),
    ("emmett", "granian/rsgi"),
    ("falcon", "granian/asgi"),
)


@dataclass(slots=True)
class Figures:
    """One target's medians in one test type."""

    rps: float
    p99_ms: float | None
    cpu_per_10k: float | None
    failed: bool
    server_cores: float | None = None
    db_cores: float | None = None


@dataclass(slots=True)
class Usage:
    """CPU seconds of a target's server and of PostgreSQL while the server was under load."""

    seconds: float = 0.0
    server: float = 0.0
    database: float = 0.0


# ---------------------------------------------------------------- PostgreSQL and its CPU


@contextlib.contextmanager
def database() -> Iterator[str]:
    """A DATABASE_URL that answers: the given one, or pg.sh's, stopped afterwards."""
    from benchmarks.tfb.db import database_url

    url = database_url()
    if _answers(url):
        yield url
        return
    output = subprocess.run(
        [str(HERE / "pg.sh"), "start"], check=True, capture_output=True, text=True
    ).stdout
    url = output.strip().rpartition("DATABASE_URL=")[2]
    try:
        yield url
    finally:
        subprocess.run([str(HERE / "pg.sh"), "stop"], check=False)


def _answers(url: str) -> bool:
    import asyncio

    import asyncpg

    async def ping() -> None:
        connection = await asyncpg.connect(url, timeout=2)
        await connection.close()

    try:
        asyncio.run(ping())
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return False
    return True


def postgres_processes() -> list[Any]:
    """pg.sh's PostgreSQL: its postmaster (from its pid file) and every backend under it; or,
    for a database pg.sh did not start, every process named postgres on this machine."""
    import psutil

    folder = Path(os.environ.get("PG_DIR", Path(tempfile.gettempdir(), "hasten-tfb-pg")))
    with contextlib.suppress(OSError, ValueError, psutil.Error):
        postmaster = psutil.Process(int((folder / "data/postmaster.pid").read_text().split()[0]))
        return [postmaster, *postmaster.children(recursive=True)]
    return [
        p for p in psutil.process_iter(["name"]) if p.info["name"] in ("postgres", "postmaster")
    ]


class Sampler(threading.Thread):
    """Every 0.25 s: which target's server runs under ``parent``, and the CPU time it and
    PostgreSQL used since the last look, added to that target's ``Usage``."""

    def __init__(self, parent: int, specs: Sequence[Spec]) -> None:
        super().__init__(daemon=True)
        self.parent = parent
        self.specs = specs
        self.usage: dict[str, Usage] = {spec.label: Usage() for spec in specs}
        self.stopping = threading.Event()
        self._seen: dict[int, float] = {}

    def run(self) -> None:
        import psutil

        last = time.monotonic()
        while not self.stopping.wait(SAMPLE_SECONDS):
            now = time.monotonic()
            spec, server = self._server(psutil)
            database = self._delta(postgres_processes())
            if spec is not None and server / (now - last) >= BUSY_CORES:
                usage = self.usage[spec.label]
                usage.seconds += now - last
                usage.server += server
                usage.database += database
            last = now

    def _server(self, psutil: Any) -> tuple[Spec | None, float]:
        try:
            children = psutil.Process(self.parent).children(recursive=True)
        except psutil.NoSuchProcess:
            return None, 0.0
        for child in children:
            with contextlib.suppress(psutil.Error):
                spec = next((s for s in self.specs if s.matches(child.cmdline())), None)
                if spec is not None:
                    return spec, self._delta([child, *child.children(recursive=True)])
        return None, 0.0

    def _delta(self, processes: list[Any]) -> float:
        """CPU seconds ``processes`` used since each was last seen (new ones: since start)."""
        total = 0.0
        for process in processes:
            try:
                times = process.cpu_times()
            except Exception:  # it ended between the listing and now
                continue
            used = times.user + times.system
            total += used - self._seen.get(process.pid, 0.0)
            self._seen[process.pid] = used
        return total


# ---------------------------------------------------------------- measuring


@dataclass(frozen=True, slots=True)
class Settings:
    duration: float
    warmup: float
    rounds: int
    connections: int
    workers: int
    queries: int
    count: int
    pipelined_connections: int


def test_path(test: str, settings: Settings) -> str:
    return {
        "queries": f"/queries?queries={settings.queries}",
        "updates": f"/updates?queries={settings.queries}",
        "cached-queries": f"/cached-queries?count={settings.count}",
    }.get(test, f"/{test}")


def bench(
    test: str, specs: Sequence[Spec], settings: Settings, env: dict[str, str]
) -> dict[str, Figures]:
    """One ``hasten bench --compare`` of ``specs``; the medians, with the sampled CPU."""
    specs = [spec for spec in specs if test not in spec.skips]
    out = JSON_DIR / f"tfb-{test}.json"
    argv = [
        *(sys.executable, "-m", "hasten", "bench", "--compare"),
        *(spec.bench_target() for spec in specs),
        *("--path", test_path(test, settings), "--workers", str(settings.workers)),
        *("--duration", f"{settings.duration:g}", "--warmup", f"{settings.warmup:g}"),
        *("--rounds", str(settings.rounds), "--connections", str(settings.connections)),
        *("--loadgen", "wrk", "--json", str(out)),
    ]
    print(f"+ {shlex.join(argv)}", flush=True)
    process = subprocess.Popen(argv, cwd=ROOT, env=env)
    sampler = Sampler(process.pid, specs)
    sampler.start()
    try:
        process.wait()
    finally:
        sampler.stopping.set()
        sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"run: hasten bench failed ({process.returncode}) for {test}")
    document = json.loads(out.read_text())
    figures = {}
    for target in document["targets"]:
        rounds = target["rounds"]
        usage = sampler.usage[target["label"]]
        figures[target["label"]] = Figures(
            rps=statistics.median(r["rps"] for r in rounds),
            p99_ms=statistics.median(r["p99_ms"] for r in rounds),
            cpu_per_10k=statistics.median(r["cpu_s_per_10k"] for r in rounds),
            failed=any(r["errors"] or r["non_2xx"] for r in rounds),
            server_cores=usage.server / usage.seconds if usage.seconds else None,
            db_cores=usage.database / usage.seconds if usage.seconds else None,
        )
    _save_usage(test, sampler.usage)
    return figures


def _save_usage(test: str, usage: dict[str, Usage]) -> None:
    path = JSON_DIR / f"tfb-{test}-cpu.json"
    data = {
        label: {"seconds": item.seconds, "server": item.server, "database": item.database}
        for label, item in usage.items()
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


PIPELINE_SCRIPT = """\
-- TFB's plaintext load: %(depth)d requests in each write, one connection's pipeline.
local depth = %(depth)d
local batch
function init(args)
  local requests = {}
  for i = 1, depth do requests[i] = wrk.format() end
  batch = table.concat(requests)
end
function request() return batch end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nTFB {"requests": %%d, "duration_us": %%d, "errors": %%d, '
    .. '"p99_us": %%d}\\n', summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout + e.status, latency:percentile(99)))
end
"""


def pipelined(specs: Sequence[Spec], settings: Settings, env: dict[str, str]) -> dict[str, Figures]:
    """plaintext, 16 requests per write, wrk driven here in alternating rounds."""
    import psutil

    specs = [spec for spec in specs if "plaintext" not in spec.skips]
    from hasten.bench.targets import launched

    rounds: dict[str, list[tuple[float, float, float, bool]]] = {s.label: [] for s in specs}
    with tempfile.TemporaryDirectory(prefix="hasten-tfb-") as folder:
        script = Path(folder, "pipeline.lua")
        script.write_text(PIPELINE_SCRIPT % {"depth": PIPELINE})
        for number in range(1, settings.rounds + 1):
            for spec in specs:
                with _environment(env), launched(spec.served(settings.workers), 30.0) as running:
                    url = f"http://127.0.0.1:{running.port}/plaintext"
                    _wrk(url, script, settings.warmup, settings.pipelined_connections)
                    tree = [
                        psutil.Process(running.pid),
                        *psutil.Process(running.pid).children(True),
                    ]
                    before = sum(sum(p.cpu_times()[:2]) for p in tree)
                    result = _wrk(url, script, settings.duration, settings.pipelined_connections)
                    after = sum(sum(p.cpu_times()[:2]) for p in tree)
                rps = result["requests"] / (result["duration_us"] / 1e6)
                cpu = (after - before) / result["requests"] * 10_000
                rounds[spec.label].append((rps, result["p99_us"] / 1000, cpu, result["errors"] > 0))
                print(f"  plaintext round {number} {spec.shown}: {rps:,.0f} req/s", flush=True)
    figures = {}
    for label, measured in rounds.items():
        figures[label] = Figures(
            rps=statistics.median(m[0] for m in measured),
            p99_ms=None,  # wrk times only some of the requests in a pipeline
            cpu_per_10k=statistics.median(m[2] for m in measured),
            failed=any(m[3] for m in measured),
        )
    (JSON_DIR / "tfb-plaintext.json").write_text(
        json.dumps({label: rounds[label] for label in rounds}, indent=1) + "\n"
    )
    return figures


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _wrk(url: str, script: Path, seconds: float, connections: int) -> dict[str, Any]:
    argv = ["wrk", "-t", "1", "-c", str(connections), "-d", f"{max(1, round(seconds))}s"]
    argv += ["--timeout", "10s", "-s", str(script), url]
    output = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("TFB "))
    result: dict[str, Any] = json.loads(line[4:])
    return result


def verify(specs: Sequence[Spec], url: str, env: dict[str, str]) -> dict[str, bool]:
    """verify.py against every target; whether each passed."""
    from hasten.bench.targets import launched

    passed = {}
    for spec in specs:
        with _environment(env), launched(spec.served(1), 30.0) as running:
            argv = [sys.executable, str(HERE / "verify.py"), f"http://127.0.0.1:{running.port}"]
            argv += ["--database-url", url]
            if spec.skips:
                argv += ["--only", *(test for test in TESTS if test not in spec.skips)]
            done = subprocess.run(argv, check=False, capture_output=True, text=True)
        passed[spec.label] = done.returncode == 0
        verdict = "PASS" if done.returncode == 0 else "FAIL"
        print(f"verify {spec.shown}: {verdict}", flush=True)
        if done.returncode != 0:
            print(done.stdout + done.stderr, flush=True)
    return passed


# ---------------------------------------------------------------- the report


@dataclass(slots=True)
class Report:
    settings: Settings
    specs: Sequence[Spec]
    command: str
    load: str
    verified: dict[str, bool] = field(default_factory=dict)
    results: dict[str, dict[str, Figures]] = field(default_factory=dict)

    def render(self) -> str:
        s = self.settings
        lines = [
            SECTION,
            "## TFB test types on PostgreSQL",
            "",
            f"Measured {time.strftime('%Y-%m-%d', time.gmtime())} (UTC) by"
            " `benchmarks/tfb/run.py`; reproduce with:",
            "",
            f"    {self.command}",
            "",
            f"- **Settings**: {s.workers} workers per server, {s.connections} connections"
            f" (plaintext: {s.pipelined_connections}, pipelined {PIPELINE} deep), {s.duration:g} s"
            f" per round after {s.warmup:g} s of warm-up, {s.rounds} alternating rounds, medians;"
            f" queries and updates at {s.queries} rows, cached-queries at {s.count}; every"
            f" app's pool holds the same number of connections per worker (`db.py`).",
            f"- **Load average before the run**: {self.load}",
            "- **Verified** (`verify.py --database-url`) before measuring: "
            + ", ".join(
                f"{spec.shown} {'PASS' if self.verified.get(spec.label) else 'FAIL'}"
                for spec in self.specs
            )
            if self.verified
            else "- **Verified**: not checked in this run (`--no-verify`)",
            "- **Columns**: *server cores* and *db cores* are the CPU seconds per second of load"
            " of the server's processes and of PostgreSQL's (sampled every 0.25 s); on 2 cores"
            " that wrk shares, a test where the db column is about as large as the server's"
            " is paced by the database. *vs raw*: req/s over raw RSGI's; *vs peers*: req/s over"
            " each peer's on the same server (Granian ASGI; Emmett's on Granian RSGI, as it ships)."
            " Emmett renders fortunes with its own template engine (Renoir), the others with"
            " Jinja2; Falcon has json and plaintext only.",
            "- **Against TFB's published Python results** (not measured here): the shape to"
            " expect is theirs, json and plaintext far ahead of the database tests, plaintext"
            " ahead of json once pipelined, fortunes close to db, queries and updates falling"
            " with the rows per request, raw Granian RSGI on top and BlackSheep ahead of FastAPI."
            " Two differences in method move the database figures: every implementation here"
            " pipelines a request's SELECTs (and UPDATEs) on one connection, as TFB's own"
            " Granian implementation does, where TFB's FastAPI and BlackSheep wait for each row"
            " in turn (so their queries and updates trail far more there); and FastAPI here"
            " returns annotated values as its tutorial does, where TFB's returns ready"
            " UJSON/ORJSON responses. TFB also runs the database on its own machine: here it"
            " shares 2 cores with the server and wrk, so the db column is CPU the framework"
            " could not use.",
        ]
        for test, figures in self.results.items():
            lines += ["", f"### {test}", ""]
            lines += self._table(test, figures)
        return "\n".join(lines) + "\n"

    def _table(self, test: str, figures: dict[str, Figures]) -> list[str]:
        rows = [
            "| target | req/s | p99 ms | CPU s/10k | server cores | db cores | vs raw | vs peers |",
            "| --- | --: | --: | --: | --: | --: | --: | --- |",
        ]
        raw = figures.get(Spec("raw", "raw_rsgi", "granian/rsgi").label)
        for spec in self.specs:
            item = figures.get(spec.label)
            if item is None:
                continue
            versus_raw = "-" if raw is None or spec.name == "raw" else _times(item.rps / raw.rps)
            peers = "-"
            if spec.name == "hasten":
                peers = ", ".join(
                    f"{peer} {_times(item.rps / other.rps)}"
                    for peer, where in PEERS
                    if (other := figures.get(Spec(peer, "", where).label)) is not None
                )
            flag = " (failed requests)" if item.failed else ""
            rows.append(
                f"| {spec.shown}{flag} | {item.rps:,.0f} | {_number(item.p99_ms)} |"
                f" {_number(item.cpu_per_10k)} | {_number(item.server_cores)} |"
                f" {_number(item.db_cores)} | {versus_raw} | {peers} |"
            )
        return rows


def _times(ratio: float) -> str:
    return f"{suite.TIMES}{ratio:.2f}"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def write_section(text: str, output: Path) -> None:
    """Put the TFB section at the end of ``output``, in place of an earlier one."""
    current = output.read_text() if output.exists() else ""
    kept = current.split(SECTION)[0].rstrip("\n")
    output.write_text((kept + "\n\n" if kept else "") + text)


# ---------------------------------------------------------------- the command


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add("--tests", nargs="+", choices=TESTS, default=list(TESTS), metavar="TEST")
    add("--duration", type=float, default=5.0, metavar="S", help="seconds per round")
    add("--warmup", type=float, default=2.0, metavar="S", help="seconds of load before each")
    add("--rounds", type=int, default=3, metavar="N")
    add("--connections", type=int, default=256, metavar="N")
    add("--pipelined-connections", type=int, default=256, metavar="N", help="plaintext's")
    add("--workers", type=int, default=2, metavar="N", help="per server (2 at most here)")
    add("--queries", type=int, default=20, metavar="N", help="rows in queries and updates")
    add("--count", type=int, default=100, metavar="N", help="rows in cached-queries")
    add("--uvicorn", action="store_true", help="also measure every ASGI app on uvicorn")
    names = sorted({spec.name for spec in (*GRANIAN, *UVICORN)})
    add("--targets", nargs="+", choices=names, metavar="NAME", help=f"only these: {names}")
    add("--no-verify", action="store_true", help="skip verify.py before measuring")
    add("--output", default=str(RESULTS), metavar="FILE", help="'-': print the section")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if Path(sys.prefix).resolve() != suite.PEERS_VENV.resolve():
        suite.ensure_peers()
        suite.ensure_wrk()
        os.execv(str(suite.PEERS_PYTHON), [str(suite.PEERS_PYTHON), __file__, *sys.argv[1:]])
    settings = Settings(
        args.duration,
        args.warmup,
        args.rounds,
        args.connections,
        args.workers,
        args.queries,
        args.count,
        args.pipelined_connections,
    )
    specs = tuple(
        spec
        for spec in (*GRANIAN, *(UVICORN if args.uvicorn else ()))
        if args.targets is None or spec.name in args.targets
    )
    command = shlex.join(["python", "benchmarks/tfb/run.py", *sys.argv[1:]])
    report = Report(settings, specs, command, ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    JSON_DIR.mkdir(exist_ok=True)
    with database() as url:
        env = {"DATABASE_URL": url}
        if not args.no_verify:
            report.verified = verify(specs, url, env)
        for test in args.tests:
            if test == "plaintext":
                report.results[test] = pipelined(specs, settings, env)
            else:
                report.results[test] = bench(test, specs, settings, {**os.environ, **env})
    text = report.render()
    if args.output == "-":
        print(text)
    else:
        write_section(text, Path(args.output))
        print(f"wrote the TFB section of {args.output}")
    return 0 if all(report.verified.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
