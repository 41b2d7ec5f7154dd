"""``hasten openapi module:app``: the document as sorted JSON, as 3.1 or 3.0, to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hasten._cli.openapi import render
from hasten.cli import main

ROOT = Path(__file__).resolve().parents[2]
TARGET = "examples.api:app"


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))


def test_prints_the_apps_document_sorted(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from examples.api import app

    assert main(["openapi", TARGET]) == 0
    out = capsysbinary.readouterr().out
    document = json.loads(out)
    assert document == json.loads(json.dumps(app.openapi()))
    assert document["openapi"] == "3.1.0"
    assert out == (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()
    assert out == render(app.openapi())


@pytest.mark.parametrize(("flag", "version"), [("3.0", "3.0.3"), ("3.1", "3.1.0")])
def test_version(flag: str, version: str, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["openapi", TARGET, "--version", flag]) == 0
    document = json.loads(capsysbinary.readouterr().out)
    assert document["openapi"] == version
    nullable = document["paths"]["/orders"]["post"]["parameters"][0]["schema"]
    title = {"title": "X-Request-Id"}
    if version == "3.0.3":
        assert nullable == {"type": "string", "maxLength": 64, "nullable": True, **title}
    else:
        assert nullable == {
            "anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}],
            **title,
        }


def test_output_file(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    output = tmp_path / "openapi.json"
    assert main(["openapi", TARGET, "--version", "3.0", "--output", str(output)]) == 0
    assert capsysbinary.readouterr().out == b""
    assert json.loads(output.read_text())["openapi"] == "3.0.3"


def test_not_an_app(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openapi", "examples.api:items"]) == 2
    assert "is a dict, not a hasten App" in capsys.readouterr().err
