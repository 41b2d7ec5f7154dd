"""The README's settings table is generated from Settings: keep them in sync."""

from __future__ import annotations

from pathlib import Path

from hasten import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def settings_table() -> str:
    rows = [
        f"| `{name}` | `{default}` | {text} |" for name, default, text in Settings.documentation()
    ]
    return "\n".join(["| setting | default | meaning |", "| --- | --- | --- |", *rows])


def test_readme_settings_table_matches_settings() -> None:
    text = README.read_text()
    start = text.index("<!-- settings-table")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end settings-table -->")
    assert text[start:end].strip() == settings_table()


def test_readme_opens_with_the_two_setup_commands() -> None:
    lines = README.read_text().splitlines()
    assert lines[2] == "```sh"
    assert lines[3].startswith("./scripts/serve")
    assert lines[4].startswith("./scripts/test")
