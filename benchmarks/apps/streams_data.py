"""The files the streams benchmarks serve, made once in a folder of their own: a 10 MB file
and a 4 KB static asset. ``HASTEN_BENCH_DATA`` names the folder (default: a fixed path under
the system's temporary folder, so every server process of a run finds the same files)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DATA = Path(os.environ.get("HASTEN_BENCH_DATA", Path(tempfile.gettempdir()) / "hasten-bench"))
BIG_NAME = "big.bin"
ASSET_NAME = "asset.css"
BIG_SIZE = 10 * 1024 * 1024
ASSET_SIZE = 4096
EVENTS_PER_STREAM = 2000


def ensure() -> Path:
    """Write the files when they are missing or of the wrong size; return their folder."""
    DATA.mkdir(parents=True, exist_ok=True)
    for name, size in ((BIG_NAME, BIG_SIZE), (ASSET_NAME, ASSET_SIZE)):
        path = DATA / name
        if not path.exists() or path.stat().st_size != size:
            block = bytes(range(256)) * (size // 256)
            path.write_bytes(block[:size])
    return DATA
