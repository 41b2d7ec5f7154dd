"""What ``hasten run --reload`` watches: source files, by uvicorn's rules on either server.

uvicorn applies them itself (``--reload-include``, ``--reload-exclude``, ``--reload-dir`` are
its options); on Granian, whose reloader restarts on any file by default (so that a route
writing ``notes.db`` restarted its own worker), ``source_filter`` applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from watchfiles import Change, DefaultFilter

__all__ = ["DEFAULT_EXCLUDE", "DEFAULT_INCLUDE", "SourceFiles", "source_filter"]

# uvicorn's defaults: Python sources; not hidden files, compiled files, editors' swap files.
DEFAULT_INCLUDE = ("*.py",)
DEFAULT_EXCLUDE = (".*", ".py[cod]", ".sw.*", "~*")


@dataclass(frozen=True, slots=True)
class SourceFiles:
    """The files whose change restarts the workers: those matching an ``include`` glob and
    no ``exclude`` glob, outside the ``excluded_dirs``."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    excluded_dirs: tuple[Path, ...]

    @classmethod
    def of(cls, include: Sequence[str], exclude: Sequence[str]) -> SourceFiles:
        """As uvicorn reads its options: the defaults, with the globs given added; a default
        named on the other side is dropped; an exclude that is a directory excludes what is
        in it."""
        directories = tuple(Path(item).resolve() for item in exclude if Path(item).is_dir())
        patterns = [item for item in exclude if Path(item).resolve() not in directories]
        return cls(
            include=_merged(DEFAULT_INCLUDE, include, dropped=exclude),
            exclude=_merged(DEFAULT_EXCLUDE, patterns, dropped=include),
            excluded_dirs=directories,
        )

    def __contains__(self, path: Path) -> bool:
        if not any(path.match(pattern) for pattern in self.include):
            return False
        if any(str(path).endswith(pattern) for pattern in self.include):
            return True  # named as it is (--reload-include .env): no exclude applies
        return not any(path.match(pattern) for pattern in self.exclude) and not any(
            directory in path.parents for directory in self.excluded_dirs
        )


def _merged(
    defaults: Sequence[str], given: Sequence[str], dropped: Sequence[str]
) -> tuple[str, ...]:
    kept = [item for item in defaults if item not in dropped]
    return tuple(dict.fromkeys([*kept, *given]))


def source_filter(files: SourceFiles) -> type[DefaultFilter]:
    """A watchfiles filter class for Granian's ``reload_filter``: watchfiles' default ignores
    (``.git``, ``.venv``, ``__pycache__``...), then ``files``. Granian makes the filter itself,
    without arguments, so ``files`` is a class attribute."""
    from watchfiles import DefaultFilter

    class SourceFilter(DefaultFilter):
        def __call__(self, change: Change, path: str) -> bool:
            return super().__call__(change, path) and Path(path) in files

    return SourceFilter
