"""The README and the docs stay true: the settings table comes from Settings, the tour runs."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import httpx
import pytest

from hasten import Settings
from hasten.cli import RunConfig
from hasten.testing import TestClient

README = Path(__file__).resolve().parents[2] / "README.md"
DOCS = README.parent / "docs"
SETTINGS = DOCS / "settings.md"
SERVING = DOCS / "serving.md"
DEPLOY = DOCS / "deploy.md"
TOUR = README.parent / "examples" / "tour.py"
# hasten run's flags for slow clients and idle connections: both documents table them.
RUN_LIMITS = ("backlog", "max_connections", "header_timeout", "keep_alive_timeout")


def settings_table() -> str:
    rows = [
        f"| `{name}` | `{default}` | {text} |" for name, default, text in Settings.documentation()
    ]
    return "\n".join(["| setting | default | meaning |", "| --- | --- | --- |", *rows])


def test_the_settings_table_matches_settings() -> None:
    text = SETTINGS.read_text()
    start = text.index("<!-- settings-table")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end settings-table -->")
    assert text[start:end].strip() == settings_table()


def test_readme_opens_with_the_two_setup_commands() -> None:
    lines = README.read_text().splitlines()
    assert lines[2] == "```sh"
    assert lines[3].startswith("./scripts/serve")
    assert lines[4].startswith("./scripts/test")


def readme_samples(language: str) -> list[str]:
    """The bodies of the README's ``language`` code blocks, in order."""
    text = README.read_text()
    return [part.split("\n", 1)[1].split("```", 1)[0] for part in text.split("```" + language)[1:]]


def test_the_readme_shows_the_tour_file_as_it_is() -> None:
    assert readme_samples("python")[0] == TOUR.read_text(), (
        "README.md's tour is a copy of examples/tour.py: copy the file into it again"
    )


def transcript() -> Iterator[tuple[list[str], str]]:
    """The README's ``curl`` commands (as their arguments) and the output shown under each."""
    (session,) = readme_samples("console")
    for command in session.split("$ ")[1:]:
        line, output = command.split("\n", 1)
        yield shlex.split(line), output.removesuffix("\n")


def curl(client: TestClient, arguments: list[str]) -> httpx.Response:
    """What the README's ``curl [-A AGENT] [--json BODY] URL`` asks of the app."""
    options = dict(zip(arguments[1:-1:2], arguments[2:-1:2], strict=True))
    assert arguments[0] == "curl", arguments
    assert set(options) <= {"-A", "--json"}, arguments
    url = arguments[-1].removeprefix("localhost:8000")
    headers = {"user-agent": options.get("-A", "curl/8.5.0")}
    if "--json" in options:
        headers["content-type"] = "application/json"
        return client.post(url, content=options["--json"], headers=headers)
    return client.get(url, headers=headers)


def test_the_tour_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request the README shows gets the very answer it shows; every route of the tour
    is among them; then the README's test of it runs, as ``test_tour.py`` beside ``tour.py``."""
    from examples import tour

    with TestClient(tour.app) as client:
        requested = set()
        for arguments, output in transcript():
            response = curl(client, arguments)
            # The body exactly, less a last newline (a transcript cannot show one).
            assert response.text.removesuffix("\n") == output, arguments
            requested.add((response.request.method, response.request.url.path))
        raw = client.get("/raw")
        assert (raw.status_code, raw.headers["x-custom"]) == (202, "1")
        assert client.post("/orders", json={"id": 1, "name": "pen"}).status_code == 201
        assert float(client.get("/hello").headers["x-process-time"]) >= 0
    assert tour.USERS == {}  # the lifespan's end ran
    routes = {(method, route.path) for route in tour.app.routes for method in route.methods}
    routes -= {("HEAD", path) for _, path in routes}
    matched = {
        (method, path)
        for method, path in routes
        for asked, url in requested
        if asked == method and re.fullmatch(re.sub(r"\{[^}]+\}", "[^?]+", path), url)
    }
    assert matched == routes

    monkeypatch.setitem(sys.modules, "tour", tour)
    namespace: dict[str, Any] = {"__name__": "test_tour"}
    exec(compile(readme_samples("python")[1], "README.md", "exec"), namespace)
    namespace["test_the_tour"]()


def test_the_readme_says_how_to_run_the_tour() -> None:
    (commands,) = [block for block in readme_samples("sh") if "examples.tour" in block]
    assert "hasten run examples.tour:app" in commands
    assert "saved as tour.py: hasten run tour:app" in commands


def test_the_run_limits_are_tabled_with_their_defaults() -> None:
    defaults = {item.name: item.default for item in fields(RunConfig)}
    for document in (SERVING, DEPLOY):
        rows = {
            row.split("|")[1].strip(): row.split("|")[2].strip()
            for row in document.read_text().splitlines()
            if row.startswith("| `--")
        }
        for name in RUN_LIMITS:
            default = defaults[name]
            shown = f"{default:g} s" if isinstance(default, float) else f"{default:,}"
            assert rows[f"`--{name.replace('_', '-')}`"].startswith(shown), (document, name)


COMPAT_RESULTS = README.parent / "compat" / "RESULTS.md"
FROM_FASTAPI = DOCS / "from-fastapi.md"


def compat_figures() -> str:
    """docs/from-fastapi.md's figures, as compat/RESULTS.md's last record gives them."""
    text = COMPAT_RESULTS.read_text()
    record = text.split("<!-- end of tables -->")[0]
    rows = re.findall(r"^\| \*\*all\*\* \| (.*) \|$", record, re.M)
    tutorial, public = (re.findall(r"(\d+)/(\d+)", row) for row in rows)
    whole = re.search(r"The whole suite: \*\*(\d+)/(\d+) ", record)
    assert whole is not None
    apps = re.findall(r"^\| \[([\w-]+)\]\(.*\*\*(\d+)/(\d+)\*\* \(", text, re.M)

    def share(passed: str, total: str, what: str = "") -> str:
        percent = 100 * int(passed) / int(total)
        return f"{int(passed):,} of {what}{int(total):,} ({percent:.1f}%)"

    (behaviour, exact, meaning), (public_api, *_) = tutorial, public
    passed, total = whole.groups()
    suite = share(passed, total, what="the ").replace(
        " (", " tests that pass on FastAPI pass on hasten ("
    )
    return (
        "`python compat/run.py` runs FastAPI 0.165.0's own `tests/` on hasten, each test's "
        "imports rewritten by `hasten port`'s rule and nothing else. At the last record, "
        f"**{suite}**; of those that test FastAPI's public API (not its private modules), "
        f"**{share(*public_api)}**; of the tutorial's, **{share(*behaviour)}**, and its apps' "
        f"OpenAPI documents equal FastAPI's in meaning {meaning[0]} of {meaning[1]} ({exact[0]} "
        f"of {exact[1]} where a test compares a whole document as a literal). Three public "
        "FastAPI applications, ported by their imports and nothing else, pass their own test "
        "suites whole: "
        + ", ".join(f"{name} {passed} of {total}" for name, passed, total in apps)
        + "."
    )


def test_the_fastapi_suite_figures_are_compat_results() -> None:
    text = FROM_FASTAPI.read_text()
    start = text.index("\n", text.index("<!-- figures:")) + 1
    shown = " ".join(text[start : text.index("<!-- end figures -->")].split())
    assert shown == compat_figures(), "docs/from-fastapi.md's figures: write them as\n" + (
        compat_figures()
    )
    assert "in the README" not in text  # the errors table is docs/routes.md's
