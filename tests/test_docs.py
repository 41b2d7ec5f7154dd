"""The README and the docs stay true: the settings table comes from Settings, the tour runs."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from hasten import App, Settings
from hasten.cli import RunConfig
from hasten.testing import TestClient

README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"
SETTINGS = DOCS / "settings.md"
SERVING = DOCS / "serving.md"
DEPLOY = DOCS / "deploy.md"
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


def test_the_tour_runs_as_written() -> None:
    """Every Python sample of the README, in order, as one program: the tour, then its test."""
    text = README.read_text()
    samples = [part.split("```", 1)[0] for part in text.split("```python")[1:]]
    assert '@app.get("/hello")' in samples[0]
    namespace: dict[str, object] = {"__name__": "tour"}
    exec(compile("\n".join(samples), "README.md", "exec"), namespace)
    app = namespace["app"]
    assert isinstance(app, App)
    with TestClient(app) as client:
        assert client.get("/hello").json() == {"message": "hello"}
        assert client.get("/items/3?q=x").json() == {"id": 3, "q": "x", "limit": 10}
        assert client.get("/search?term=a&size=500").status_code == 422
        assert client.get("/tokens").text == "one\ntwo\nthree\n"
        assert client.post("/orders", json={"id": 1, "name": "pen"}).status_code == 201
        assert client.get("/api/users/1").status_code == 200


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
