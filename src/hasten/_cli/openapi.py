"""``hasten openapi module:app``: print the app's OpenAPI document."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["add_parser", "render"]


def add_parser(commands: Any) -> None:
    """Add the ``openapi`` command to ``hasten``'s subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "openapi",
        help="print an app's OpenAPI document",
        description="Print an app's OpenAPI document as JSON, keys sorted.",
    )
    parser.add_argument(
        "target", metavar="MODULE:APP", help="The app, as module:attribute (e.g. pkg.main:app)."
    )
    parser.add_argument(
        "--version",
        choices=("3.0", "3.1"),
        default=None,
        help="OpenAPI 3.1, or 3.0 for client generators (default: the app's openapi_version).",
    )
    parser.add_argument(
        "--output", type=Path, default=None, metavar="FILE", help="Write to FILE, not stdout."
    )
    parser.set_defaults(handler=_command)


def render(document: dict[str, Any]) -> bytes:
    """A document as hasten prints it: indented JSON, keys sorted, so diffs stay small."""
    return msgspec.json.format(msgspec.json.encode(document, order="sorted"), indent=2) + b"\n"


def _command(args: argparse.Namespace) -> int:
    from hasten._cli.loading import load_app
    from hasten.openapi.document import app_openapi

    app = load_app(args.target)
    if args.version is None:
        document = app.openapi()
    else:
        document = app_openapi(app, {"3.0": "3.0.3", "3.1": "3.1.0"}[args.version])
    text = render(document)
    if args.output is None:
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
    else:
        args.output.write_bytes(text)
    return 0
