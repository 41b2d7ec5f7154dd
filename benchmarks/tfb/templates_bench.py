"""Fortunes' template, rendered by Jinja2 (hasten.templating) and by Mako, against a
hand-written page: microseconds per render of TFB's 13 rows, escaping included.

    benchmarks/.venv-peers/bin/python -m benchmarks.tfb.templates_bench

Mako is the alternative measured: like Jinja2 it compiles a template to a Python function, it
is the other engine with a long record in Python web frameworks (Pyramid, Pylons), and it
escapes with the same MarkupSafe. Every page is checked to be the same HTML first.
"""

from __future__ import annotations

import statistics
import timeit
from pathlib import Path

from mako.template import Template as MakoTemplate
from markupsafe import escape

from benchmarks.tfb.db import EXTRA_FORTUNE
from benchmarks.tfb.verify import FORTUNES
from hasten.templating import Jinja2Templates

ROWS = sorted([*FORTUNES, EXTRA_FORTUNE], key=lambda row: row[1])
HEAD = (
    "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n"
    "<tr><th>id</th><th>message</th></tr>\n"
)
TAIL = "</table>\n</body>\n</html>"
MAKO = (
    HEAD
    + "% for id, message in fortunes:\n<tr><td>${id}</td><td>${message}</td></tr>\n% endfor\n"
    + TAIL
)

jinja = Jinja2Templates(directory=Path(__file__).parent / "templates")
mako = MakoTemplate(MAKO, default_filters=["h"])


def with_jinja2() -> bytes:
    return jinja.render("fortunes.html", {"fortunes": ROWS}).body


def with_mako() -> bytes:
    page: str = mako.render(fortunes=ROWS)
    return page.encode()


def by_hand() -> bytes:
    rows = "".join(f"<tr><td>{id}</td><td>{escape(message)}</td></tr>\n" for id, message in ROWS)
    return (HEAD + rows + TAIL).encode()


def main() -> None:
    expected = by_hand()
    for render in (with_jinja2, with_mako):
        assert render() == expected, f"{render.__name__} renders another page"
    for render in (by_hand, with_jinja2, with_mako):
        runs = timeit.repeat(render, number=2000, repeat=7)
        best, median = min(runs) / 2000 * 1e6, statistics.median(runs) / 2000 * 1e6
        print(f"{render.__name__:12} best {best:6.1f} µs  median {median:6.1f} µs per page")


if __name__ == "__main__":
    main()
