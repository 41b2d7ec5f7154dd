"""The FastAPI-shaped app on the wire (issue 27, point 3): hasten against FastAPI and its peers.

    python benchmarks/fastapi_shaped.py            # every scenario: run it on a quiet machine
    python benchmarks/fastapi_shaped.py --only mix --duration 5 --rounds 5
    python benchmarks/fastapi_shaped.py --smoke    # a few seconds: proves the run works

The app is the one a FastAPI user moves (``benchmarks/apps/shaped_*``, whose docstring lists
the routes): pydantic in and out (``response_model``), two ``@app.middleware("http")``
functions, an OAuth2 bearer dependency with a user lookup, and one plain ``def`` route. Each
scenario is one ``hasten bench --compare`` run in alternating rounds: hasten on Granian RSGI,
Granian ASGI and uvicorn; FastAPI, Litestar and Starlette (written in its own idiom) on
Granian ASGI and uvicorn (one worker each). It prints, per scenario, each target's req/s and
requests per CPU-second (the server's process tree), and hasten's ratios to the peers on the
same server (hasten on Granian RSGI against them on Granian ASGI) as a Markdown table, for
RESULTS.md; each run's JSON goes to ``benchmarks/results/shaped-<scenario>.json``. Issue 27's
goal: at least 3x FastAPI's requests per CPU-second on the same server; issue 34's, for the
``def`` route: at least 3x Litestar's.

It runs from ``benchmarks/.venv-peers``, built as ``benchmarks/suite.py`` builds it (and by
it, when missing). ``--smoke`` runs every scenario once, for a second, from the venv at hand
(the peers venv if there is one): targets whose framework is not installed are left out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.suite import ORDER, PEERS_PYTHON, ensure_peers  # noqa: E402

RESULTS = HERE / "results"
ITEMS = f"POST /items body='{ORDER}' header=content-type:application/json"
ME = "GET /me 'header=authorization:Bearer abc'"
SYNC = "GET /sync"
# Each scenario's requests (``hasten bench --request``); "mix" weighs them as an API's day.
SCENARIOS: dict[str, tuple[str, ...]] = {
    "items": (ITEMS,),
    "me": (ME,),
    "sync": (SYNC,),
    "mix": (f"{ITEMS} weight=2", f"{ME} weight=3", SYNC),
}
# (label, framework, where): hasten on each, the peers on each ASGI server.
TARGETS = (
    ("hasten.rsgi", "hasten", "granian/rsgi"),
    ("hasten.granian", "hasten", "granian/asgi"),
    ("fastapi.granian", "fastapi", "granian/asgi"),
    ("litestar.granian", "litestar", "granian/asgi"),
    ("starlette.granian", "starlette", "granian/asgi"),
    ("hasten.uvicorn", "hasten", "uvicorn"),
    ("fastapi.uvicorn", "fastapi", "uvicorn"),
    ("litestar.uvicorn", "litestar", "uvicorn"),
    ("starlette.uvicorn", "starlette", "uvicorn"),
)
# hasten's target against each peer's on the same server.
PAIRS = (
    ("hasten.rsgi", "fastapi.granian"),
    ("hasten.rsgi", "litestar.granian"),
    ("hasten.rsgi", "starlette.granian"),
    ("hasten.granian", "fastapi.granian"),
    ("hasten.granian", "litestar.granian"),
    ("hasten.uvicorn", "fastapi.uvicorn"),
    ("hasten.uvicorn", "litestar.uvicorn"),
    ("hasten.uvicorn", "starlette.uvicorn"),
)


def targets(frameworks: Sequence[str]) -> list[str]:
    """``hasten bench`` targets of the frameworks given."""
    return [
        f"{label}=benchmarks.apps.shaped_{framework}:app@{where}"
        for label, framework, where in TARGETS
        if framework in frameworks
    ]


def installed(python: str) -> list[str]:
    """The frameworks ``python`` can import."""
    probe = "import importlib.util as u, sys; print(*[n for n in sys.argv[1:] if u.find_spec(n)])"
    names = ("hasten", "fastapi", "litestar", "starlette")
    found = subprocess.run(
        [python, "-c", probe, *names], check=True, capture_output=True, text=True, cwd=HERE.parent
    )
    return found.stdout.split()


def run(scenario: str, python: str, frameworks: Sequence[str], args: argparse.Namespace) -> Any:
    """One ``hasten bench --compare`` run of the scenario: its JSON document."""
    RESULTS.mkdir(exist_ok=True)
    json_path = RESULTS / f"shaped-{scenario}{'-smoke' if args.smoke else ''}.json"
    command = [
        *(python, "-m", "hasten", "bench", "--compare", *targets(frameworks)),
        *(option for spec in SCENARIOS[scenario] for option in ("--request", spec)),
        *("--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}"),
        *("--rounds", str(args.rounds), "--workers", "1"),
        *("--connections", str(args.connections), "--json", str(json_path)),
    ]
    print("$", subprocess.list2cmdline(command), flush=True)
    subprocess.run(command, check=True, cwd=HERE.parent)
    return json.loads(json_path.read_text())


def table(scenario: str, document: Any) -> str:
    """Each target's req/s and requests per CPU-second, and hasten's ratios, in Markdown."""
    medians = {target["label"]: target["median"] for target in document["targets"]}
    lines = [
        f"### `{scenario}`: {', '.join(f'`{spec}`' for spec in SCENARIOS[scenario])}",
        "",
        "| target | req/s | requests per CPU-second | errors + non-2xx |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, median in medians.items():
        failed = median["errors"] + median["non_2xx"]
        lines.append(f"| {label} | {median['rps']:,.0f} | {per_cpu(median):,.0f} | {failed:,.0f} |")
    lines += [
        "",
        "| hasten | against | req/s | requests per CPU-second |",
        "| --- | --- | ---: | ---: |",
    ]
    for ours, theirs in PAIRS:
        if ours in medians and theirs in medians:
            rps = medians[ours]["rps"] / medians[theirs]["rps"]
            cpu = per_cpu(medians[ours]) / per_cpu(medians[theirs])
            lines.append(f"| {ours} | {theirs} | {rps:.2f}x | {cpu:.2f}x |")
    return "\n".join(lines)


def per_cpu(median: dict[str, Any]) -> float:
    """Requests per CPU-second of the server's process tree."""
    seconds: float = median["cpu_s_per_10k"]
    return 10_000 / seconds if seconds else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--smoke", action="store_true", help="one short round, the venv at hand")
    args = parser.parse_args()
    if args.smoke:
        args.duration, args.warmup, args.rounds, args.connections = 1.0, 0.5, 1, 8
        python = str(PEERS_PYTHON) if PEERS_PYTHON.exists() else sys.executable
    else:
        ensure_peers()
        python = str(PEERS_PYTHON)
    frameworks = installed(python)
    missing = sorted({"hasten", "fastapi", "litestar"} - set(frameworks))
    if missing:
        print(f"not installed for {python}, left out: {', '.join(missing)}", flush=True)
    documents = {scenario: run(scenario, python, frameworks, args) for scenario in args.only}
    print("\n\n".join(table(scenario, document) for scenario, document in documents.items()))
    failed = [
        f"{scenario} {target['label']}"
        for scenario, document in documents.items()
        for target in document["targets"]
        if target["median"]["errors"] or target["median"]["non_2xx"]
    ]
    if failed:
        print(f"errors or non-2xx answers: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
