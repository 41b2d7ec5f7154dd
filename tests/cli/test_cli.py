"""The ``hasten`` command: ``routes`` and the errors in-process, ``run`` as real servers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import hasten
from hasten._cli.arguments import from_arguments
from hasten.app import RouteInfo
from hasten.cli import RunConfig, build_parser, format_routes, load_app, main
from tests.servers.running import (
    free_port,
)

ROOT = Path(__file__).resolve().parents[2]
TARGET = "examples.hello:app"


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository root; undo the cwd that ``load_app`` puts on ``sys.path``."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))


# hasten routes
@pytest.mark.usefixtures("in_repo")
def test_routes_prints_one_row_per_route_sorted_by_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["routes", TARGET]) == 0

    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["METHODS", "PATH", "HANDLER", "RUNS", "ON"]
    paths = [row.split()[1] for row in rows]
    assert paths == sorted(route.path for route in load_app(TARGET).describe_routes())
    cells = {" ".join(row.split()) for row in rows}
    assert "GET /hello examples.hello.hello event loop" in cells
    assert "GET /wait examples.hello.wait thread pool" in cells
    assert "POST /orders examples.hello.create event loop" in cells


@pytest.mark.usefixtures("in_repo")
def test_routes_columns_are_aligned(capsys: pytest.CaptureFixture[str]) -> None:
    main(["routes", TARGET])

    header, *rows = capsys.readouterr().out.splitlines()
    starts = [header.index(title) for title in ("PATH", "HANDLER", "RUNS ON")]
    for row in rows:
        for start in starts:
            assert row[start - 1] == " "
            assert row[start] != " "


def test_format_routes_joins_methods_and_sorts_by_path() -> None:
    routes = [
        RouteInfo(("GET",), "/b", "m.b", "thread pool"),
        RouteInfo(("GET", "POST"), "/a/{id}", "m.a", "event loop"),
    ]

    assert format_routes(routes).splitlines() == [
        "METHODS   PATH     HANDLER  RUNS ON",
        "GET,POST  /a/{id}  m.a      event loop",
        "GET       /b       m.b      thread pool",
    ]


def test_format_routes_of_no_routes_is_the_header() -> None:
    assert format_routes([]) == "METHODS  PATH  HANDLER  RUNS ON"


# Errors: one line on stderr, exit code 2, nothing served.
@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize("command", ["routes", "run"])
@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nosuchmodule:app", "cannot import 'nosuchmodule': No module named 'nosuchmodule'"),
        ("examples.nope:app", "cannot import 'examples.nope': No module named 'examples.nope'"),
        ("examples.hello:nope", "module 'examples.hello' has no attribute 'nope'"),
        ("examples.hello:app.nope", "module 'examples.hello' has no attribute 'app.nope'"),
        ("examples.hello:started", "examples.hello:started is a list, not a hasten App"),
        ("examples.hello", "target 'examples.hello' must look like module:attribute"),
        (":app", "target ':app' must look like module:attribute"),
    ],
)
def test_a_bad_target_is_one_line_and_exit_code_2(
    command: str, target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, target]) == 2

    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"hasten: error: {message}")
    assert err.count("\n") == 1


def test_an_import_error_inside_the_app_keeps_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_app.py").write_text("import nosuchdependency\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))

    with pytest.raises(ModuleNotFoundError, match="nosuchdependency"):
        main(["routes", "broken_app:app"])


@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--server", "uvicorn", "--interface", "rsgi"], "uvicorn speaks ASGI only"),
        (["--port", "0"], "port must be between 1 and 65535, got 0"),
        (["--port", "65536"], "port must be between 1 and 65535, got 65536"),
        (["--workers", "0"], "workers must be at least 1, got 0"),
        (["--server", "uvicorn", "--reload", "--workers", "2"], "uvicorn cannot reload with"),
        (["--backlog", "0"], "backlog must be at least 1, got 0"),
        (["--max-connections", "0"], "max_connections must be at least 1, got 0"),
        (["--header-timeout", "0"], "header_timeout must be positive, got 0.0"),
        (["--keep-alive-timeout", "-1"], "keep_alive_timeout must be positive, got -1.0"),
        (["--reload-include", "*.html"], "--reload-dir, --reload-include and --reload-exclude"),
    ],
)
def test_conflicting_options_are_one_line_and_exit_code_2(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", TARGET, *options]) == 2

    err = capsys.readouterr().err
    assert err.startswith(f"hasten: error: {message}")
    assert err.count("\n") == 1


@pytest.mark.usefixtures("in_repo")
def test_a_busy_port_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert main(["run", TARGET, "--port", str(port)]) == 2

    err = capsys.readouterr().err
    assert (
        err == f"hasten: error: cannot listen on http://127.0.0.1:{port}: Address already in use\n"
    )


@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize(
    ("module", "options", "install"),
    [
        ("watchfiles", ["--reload"], "pip install 'hasten[reload]'"),
        ("uvicorn", ["--server", "uvicorn"], "pip install 'hasten[uvicorn]'"),
    ],
)
def test_a_missing_extra_says_how_to_install_it(
    module: str,
    options: list[str],
    install: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes the module unimportable

    assert main(["run", TARGET, *options]) == 2

    err = capsys.readouterr().err
    assert err.startswith("hasten: error: ")
    assert err.rstrip().endswith(install)


@pytest.mark.parametrize(
    "argv", [["run", TARGET, "--interface", "wsgi"], ["run"], ["routes"], ["serve", TARGET], []]
)
def test_malformed_command_lines_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2


# --version, --help, and the options derived from RunConfig
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])

    assert exited.value.code == 0
    assert capsys.readouterr().out == f"hasten {hasten.__version__}\n"


# What the extras bring, beyond the serve set (requirements/serve.txt): none of it is needed
# to read a command's help.
EXTRAS_MODULES = ("psutil", "uvicorn", "watchfiles", "httpx", "prometheus_client", "pydantic")


@pytest.mark.parametrize("command", ["run", "routes", "openapi", "bench", "port"])
def test_help_for_each_command_needs_no_extra(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for module in EXTRAS_MODULES:
        monkeypatch.setitem(sys.modules, module, None)  # makes the module unimportable
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])

    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: hasten {command} ")


FASTAPI_APP = """from fastapi import FastAPI, Depends
from fastapi.responses import JSONResponse

app = FastAPI()
"""
PORTED_APP = """from hasten import App as FastAPI, Depends
from hasten.responses import JSONResponse

app = FastAPI()
"""


def test_port_rewrites_the_imports_of_every_file_and_prints_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pkg").mkdir()
    main_py, other = tmp_path / "pkg" / "main.py", tmp_path / "pkg" / "other.py"
    main_py.write_text(FASTAPI_APP)
    other.write_text("import json\n")

    assert main(["port", "--diff", str(tmp_path)]) == 1  # changes to make: nothing written
    assert main_py.read_text() == FASTAPI_APP
    diff = capsys.readouterr().out
    assert diff == (
        f"--- {main_py}\n+++ {main_py}\n@@ -1,4 +1,4 @@\n"
        "-from fastapi import FastAPI, Depends\n-from fastapi.responses import JSONResponse\n"
        "+from hasten import App as FastAPI, Depends\n+from hasten.responses import JSONResponse\n"
        " \n app = FastAPI()\n"
    )

    assert main(["port", str(tmp_path)]) == 0
    assert main_py.read_text() == PORTED_APP
    assert other.read_text() == "import json\n"
    assert main(["port", "--diff", str(main_py)]) == 0  # nothing left to change
    capsys.readouterr()
    missing = tmp_path / "missing.py"
    assert main(["port", str(missing)]) == 2
    assert capsys.readouterr().err == f"hasten: error: No such file or folder: {missing}\n"


# hasten bench: its implementation is imported only when it runs.
UP_TO_SERVING = """
import sys

import hasten._cli.main as cli

cli.build_parser().parse_args(["run", "examples.hello:app"])
cli._SERVERS["granian"] = lambda config: None  # everything of `hasten run` but the server
assert cli.main(["run", "examples.hello:app", "--port", sys.argv[1]]) == 0
assert cli.main(["routes", "examples.hello:app"]) == 0
print(sorted(name for name in sys.modules if name.startswith("hasten.bench") or name == "psutil"))
"""


def test_run_and_routes_import_neither_bench_nor_psutil() -> None:
    argv = [sys.executable, "-c", UP_TO_SERVING, str(free_port())]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)

    assert "hasten: serving examples.hello:app" in done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.usefixtures("in_repo")
def test_bench_reaches_its_own_parser(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "m:app", "--compare", "n:app"]) == 2

    assert "hasten bench: error: give one TARGET" in capsys.readouterr().err


def test_run_help_documents_every_run_config_field(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])

    text = " ".join(capsys.readouterr().out.split())
    for item in fields(RunConfig):
        assert item.metadata["help"].removesuffix(".") in text
        if item.name != "target":
            assert f"--{item.name.replace('_', '-')}" in text
    assert "--interface {rsgi,asgi}" in text
    assert "--server {granian,uvicorn}" in text
    assert "(default: 8000)" in text


def test_the_parser_defaults_are_run_configs_defaults() -> None:
    args = build_parser().parse_args(["run", TARGET])

    assert from_arguments(RunConfig, args) == RunConfig(target=TARGET)


def test_the_parser_converts_each_option_to_its_field_type() -> None:
    argv = ["run", TARGET, "--host", "::1", "--port", "9000", "--workers", "3", "--reload"]
    args = build_parser().parse_args([*argv, "--interface", "asgi", "--server", "uvicorn"])

    assert (args.host, args.port, args.workers, args.reload) == ("::1", 9000, 3, True)
    assert (args.interface, args.server) == ("asgi", "uvicorn")


@pytest.mark.parametrize(
    ("config", "description"),
    [
        (RunConfig(target="m:app"), "m:app on http://127.0.0.1:8000 (granian, rsgi, 1 worker)"),
        (
            RunConfig(target="m:app", server="uvicorn", workers=2),
            "m:app on http://127.0.0.1:8000 (uvicorn, asgi, 2 workers)",
        ),
        (
            RunConfig(target="m:app", host="::1", port=9000, interface="asgi", reload=True),
            "m:app on http://[::1]:9000 (granian, asgi, 1 worker, reload)",
        ),
    ],
)
def test_run_config_describes_what_is_served_where(config: RunConfig, description: str) -> None:
    assert config.describe() == description


def test_workers_auto_means_one_per_cpu() -> None:
    args = build_parser().parse_args(["run", TARGET, "--workers", "auto"])
    assert args.workers == (os.cpu_count() or 1)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", TARGET, "--workers", "many"])
