"""run.py's pieces that need no load: targets, the report, and where it goes."""

from __future__ import annotations

from pathlib import Path

from benchmarks.suite import TIMES
from benchmarks.tfb import run
from benchmarks.tfb.run import Figures, Report, Settings, Spec

SETTINGS = Settings(5, 2, 3, 256, 2, 20, 100, 256)


def test_a_spec_is_a_hasten_bench_target_and_knows_its_server() -> None:
    spec = Spec("hasten", "app", "granian/rsgi")
    assert spec.bench_target() == "hasten.granian.rsgi=benchmarks.tfb.app:app@granian/rsgi"
    served = spec.served(2)
    assert (served.app, served.server, served.interface, served.workers) == (
        "benchmarks.tfb.app:app",
        "granian",
        "rsgi",
        2,
    )
    granian = ["python", "-m", "granian", "--interface", "rsgi", "benchmarks.tfb.app:app"]
    assert spec.matches(granian)
    assert not Spec("hasten", "app", "granian/asgi").matches(granian)
    assert not Spec("raw", "raw_rsgi", "granian/rsgi").matches(granian)
    uvicorn = ["python", "-m", "uvicorn", "--port", "1", "benchmarks.tfb.app:app"]
    assert Spec("hasten", "app", "uvicorn").matches(uvicorn)
    assert not spec.matches(uvicorn)


def test_the_paths_carry_the_row_counts() -> None:
    assert run.test_path("queries", SETTINGS) == "/queries?queries=20"
    assert run.test_path("updates", SETTINGS) == "/updates?queries=20"
    assert run.test_path("cached-queries", SETTINGS) == "/cached-queries?count=100"
    assert run.test_path("fortunes", SETTINGS) == "/fortunes"


def test_the_report_gives_ratios_to_raw_and_to_each_peer() -> None:
    report = Report(SETTINGS, run.GRANIAN, "python benchmarks/tfb/run.py", "0.50, 0.40, 0.30")
    report.verified = {spec.label: True for spec in run.GRANIAN}
    rps = {"hasten": 900.0, "raw": 1000.0, "starlette": 600.0, "fastapi": 300.0}
    report.results["db"] = {  # as bench() measures them: only the targets that have /db
        spec.label: Figures(rps.get(spec.name, 450.0), 10.0, 2.0, False, 1.2, 0.6)
        for spec in run.GRANIAN
        if "db" not in spec.skips
    }
    text = report.render()
    assert text.startswith(run.SECTION + "\n## TFB test types on PostgreSQL\n")
    assert "    python benchmarks/tfb/run.py\n" in text
    assert "hasten@granian/rsgi PASS, raw@granian/rsgi PASS" in text
    x = TIMES
    assert (
        f"| hasten@granian/rsgi | 900 | 10.00 | 2.00 | 1.20 | 0.60 | {x}0.90 |"
        f" starlette {x}1.50, fastapi {x}3.00, blacksheep {x}2.00, emmett {x}2.00 |"
    ) in text
    assert "| raw@granian/rsgi | 1,000 | 10.00 | 2.00 | 1.20 | 0.60 | - | - |" in text
    assert "falcon@granian/asgi |" not in text.partition("### db")[2]  # it has no /db


def test_the_section_replaces_the_last_one_and_keeps_the_rest(tmp_path: Path) -> None:
    output = tmp_path / "RESULTS.md"
    output.write_text("# hasten side by side\n\nthe suite's tables\n")
    run.write_section(f"{run.SECTION}\nfirst\n", output)
    run.write_section(f"{run.SECTION}\nsecond\n", output)
    assert (
        output.read_text()
        == f"# hasten side by side\n\nthe suite's tables\n\n{run.SECTION}\nsecond\n"
    )
