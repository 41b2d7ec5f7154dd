"""App settings, defined once: the App's keyword arguments and their documentation."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

__all__ = ["DEFAULT_MAX_BODY_SIZE", "DEFAULT_MAX_THREADS", "Settings"]

DEFAULT_MAX_BODY_SIZE = 1_048_576
DEFAULT_MAX_THREADS = 128


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """What an App is configured with. Each field is an ``App(...)`` keyword argument."""

    debug: bool = field(
        default=False,
        metadata={"help": "Put the exception and traceback of a 500 in its response body."},
    )
    max_body_size: int = field(
        default=DEFAULT_MAX_BODY_SIZE,
        metadata={"help": "Largest request body in bytes; a larger one gets 413."},
    )
    max_threads: int = field(
        default=DEFAULT_MAX_THREADS,
        metadata={"help": "Threads in the pool that runs plain `def` handlers."},
    )

    def __post_init__(self) -> None:
        for name in ("max_body_size", "max_threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """(name, default, help) for every setting: the README table is generated from this."""
        return [
            (item.name, repr(item.default), str(item.metadata.get("help", "")))
            for item in fields(cls)
        ]
