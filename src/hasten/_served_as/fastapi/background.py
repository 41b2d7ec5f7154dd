"""``fastapi.background``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.background import BackgroundTasks
from hasten.background import BackgroundTasks as StarletteBackgroundTasks

__all__ = ["BackgroundTasks", "StarletteBackgroundTasks"]
