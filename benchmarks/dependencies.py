"""Dependencies, forms and uploads, side by side: hasten against FastAPI and Litestar.

    python benchmarks/dependencies.py                       # every scenario
    python benchmarks/dependencies.py --only deps --duration 3 --rounds 3

Each scenario is one ``hasten bench --compare`` run over the ``benchmarks/apps/di_*`` apps
(their docstring lists the routes), in alternating rounds: hasten on Granian RSGI and on
uvicorn, FastAPI and Litestar on uvicorn (the same server, for the ratios), and for ``deps``
hasten's ``app_inline`` (the same response computed in the handler) and ``app_called`` (the
same three functions called in the handler: what is left is the solver's; ``app_called_bare``
the same with try/except). The JSON of each run
goes to ``benchmarks/results/di-<scenario>.json``; the ratios are printed. It runs from
``benchmarks/.venv-peers`` (``python benchmarks/suite.py`` builds it).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"
RESULTS = HERE / "results"
BOUNDARY = "hastenbench"
UPLOAD_SIZE = 1024 * 1024


def upload_body() -> bytes:
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    return head + b"x" * UPLOAD_SIZE + f"\r\n--{BOUNDARY}--\r\n".encode()


def targets(scenario: str) -> list[str]:
    """Labels: the framework, ``.rsgi`` on Granian's RSGI, else on uvicorn."""
    found = [
        "hasten.rsgi=benchmarks.apps.di_hasten:app@granian/rsgi",
        "hasten=benchmarks.apps.di_hasten:app@uvicorn",
        "fastapi=benchmarks.apps.di_fastapi:app@uvicorn",
        "litestar=benchmarks.apps.di_litestar:app@uvicorn",
    ]
    if scenario == "deps":
        found[1:1] = [
            "hasten-inline.rsgi=benchmarks.apps.di_hasten:app_inline@granian/rsgi",
            "hasten-called.rsgi=benchmarks.apps.di_hasten:app_called@granian/rsgi",
            "hasten-bare.rsgi=benchmarks.apps.di_hasten:app_called_bare@granian/rsgi",
        ]
        found.append("hasten-inline=benchmarks.apps.di_hasten:app_inline@uvicorn")
        found.append("hasten-called=benchmarks.apps.di_hasten:app_called@uvicorn")
        found.append("hasten-bare=benchmarks.apps.di_hasten:app_called_bare@uvicorn")
    return found


def request(scenario: str, files: Path) -> str:
    if scenario == "deps":
        return "GET /deps header=x-token:abc"
    if scenario == "form":
        fields = "a=text&b={1..1000}&c=1.5&d=true&e=more"
        return f"POST /form body={fields} header=content-type:application/x-www-form-urlencoded"
    body = files / "upload.bin"
    body.write_bytes(upload_body())
    media = f"multipart/form-data;boundary={BOUNDARY}"
    return f"POST /upload body=@{body} header=content-type:{media}"


SCENARIOS = ("deps", "form", "upload")


def run(scenario: str, duration: float, rounds: int, connections: int) -> dict[str, float]:
    RESULTS.mkdir(exist_ok=True)
    json_path = RESULTS / f"di-{scenario}.json"
    with tempfile.TemporaryDirectory() as files:
        command = [
            str(PEERS_PYTHON),
            *("-m", "hasten", "bench", "--compare", *targets(scenario)),
            *("--request", request(scenario, Path(files))),
            *("--duration", str(duration), "--rounds", str(rounds)),
            *("--connections", str(connections), "--json", str(json_path)),
        ]
        print("$", " ".join(command), flush=True)
        subprocess.run(command, check=True, cwd=HERE.parent)
    document = json.loads(json_path.read_text())
    return {target["label"]: target["median"]["rps"] for target in document["targets"]}


def ratios(scenario: str, rps: dict[str, float]) -> list[str]:
    lines = [f"{label}: {value:,.0f} req/s" for label, value in rps.items()]
    same_server = rps["hasten"]
    lines.append(f"hasten / fastapi on uvicorn: {same_server / rps['fastapi']:.2f}x")
    lines.append(f"hasten / litestar on uvicorn: {same_server / rps['litestar']:.2f}x")
    lines.append(f"hasten on RSGI / fastapi on uvicorn: {rps['hasten.rsgi'] / rps['fastapi']:.2f}x")
    if scenario == "deps":
        for suffix, where in ((".rsgi", "granian/rsgi"), ("", "uvicorn")):
            for other, what in (
                ("inline", "computed inline"),
                ("called", "called inline"),
                ("bare", "called inline, try/except"),
            ):
                slower = 1 - rps[f"hasten{suffix}"] / rps[f"hasten-{other}{suffix}"]
                lines.append(f"dependencies against {what} on {where}: {slower:+.1%} slower")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    if not PEERS_PYTHON.exists():
        print("benchmarks/.venv-peers is missing: python benchmarks/suite.py builds it")
        return 1
    for scenario in args.only:
        found = run(scenario, args.duration, args.rounds, args.connections)
        print(f"\n## {scenario}\n" + "\n".join(ratios(scenario, found)) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
