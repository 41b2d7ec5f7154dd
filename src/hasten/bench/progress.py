"""The live progress bar on stderr: one line, redrawn by a thread, only on a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["Progress"]

_WIDTH = 30
_INTERVAL = 0.1


class Progress:
    """Shows how far each timed phase of a run has come; silent unless ``stream`` is a TTY."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled

    @contextlib.contextmanager
    def phase(self, text: str, seconds: float) -> Iterator[None]:
        """Draw ``text`` and a bar that fills in ``seconds`` until the block ends."""
        if not self.enabled:
            yield
            return
        done = threading.Event()
        thread = threading.Thread(target=self._draw, args=(text, seconds, done), daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def _draw(self, text: str, seconds: float, done: threading.Event) -> None:
        start = time.monotonic()
        while True:
            elapsed = time.monotonic() - start
            filled = min(_WIDTH, int(_WIDTH * elapsed / seconds)) if seconds > 0 else _WIDTH
            bar = "#" * filled + "." * (_WIDTH - filled)
            self.stream.write(f"\r\x1b[2K{text} [{bar}] {elapsed:4.1f}/{seconds:g} s")
            self.stream.flush()
            if done.wait(_INTERVAL):
                return
