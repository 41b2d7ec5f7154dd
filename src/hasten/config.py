"""Configuration from the environment and a ``.env`` file, as Starlette's ``starlette.config``.

    config = Config(".env")
    DEBUG = config("DEBUG", cast=bool, default=False)
    SECRET_KEY = config("SECRET_KEY", cast=Secret)
    ALLOWED_HOSTS = config("ALLOWED_HOSTS", cast=CommaSeparatedStrings)

A value is looked up in the environment first, then in the file, then taken from ``default``;
it is cast as asked, the default too. Once a key of ``environ`` has been read it cannot be set
or deleted (a setting read at import would silently keep its old value).
"""

from __future__ import annotations

import os
import shlex
import warnings
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

__all__ = [
    "CommaSeparatedStrings",
    "Config",
    "Environ",
    "EnvironError",
    "Secret",
    "environ",
    "undefined",
]

T = TypeVar("T")
# bool("false") is True: a boolean setting is read from these words instead.
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


class _Undefined:
    """No default: a missing key is a KeyError."""

    def __repr__(self) -> str:
        return "undefined"


undefined = _Undefined()


class EnvironError(Exception):
    """A key of ``environ`` was set or deleted after it had been read."""


class Environ(MutableMapping[str, str]):
    """``os.environ``, whose keys cannot change once read."""

    def __init__(self, environ: MutableMapping[str, str] = os.environ) -> None:
        self._environ = environ
        self._read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self._read.add(key)
        return self._environ[key]

    def __setitem__(self, key: str, value: str) -> None:
        if key in self._read:
            raise EnvironError(
                f"Attempting to set environ['{key}'], but the value has already been read."
            )
        self._environ[key] = value

    def __delitem__(self, key: str) -> None:
        if key in self._read:
            raise EnvironError(
                f"Attempting to delete environ['{key}'], but the value has already been read."
            )
        del self._environ[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._environ)

    def __len__(self) -> int:
        return len(self._environ)


environ = Environ()


class Secret:
    """A value that is not printed: its repr is stars, ``str()`` gives it."""

    def __init__(self, value: str) -> None:
        self._value = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}('**********')"

    def __str__(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)


class CommaSeparatedStrings(Sequence[str]):
    """``"a, b,c"`` as the sequence ``["a", "b", "c"]`` (quoted parts may hold commas)."""

    def __init__(self, value: str | Sequence[str]) -> None:
        if isinstance(value, str):
            lexer = shlex.shlex(value, posix=True)
            lexer.whitespace = ","
            lexer.whitespace_split = True
            self._items = [item.strip() for item in lexer]
        else:
            self._items = list(value)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._items[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._items!r})"

    def __str__(self) -> str:
        return ", ".join(repr(item) for item in self._items)


class Config:
    """Settings read from ``environ`` (``env_prefix`` before each key), then ``env_file``."""

    def __init__(
        self,
        env_file: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] = environ,
        env_prefix: str = "",
        encoding: str = "utf-8",
    ) -> None:
        self.environ = environ
        self.env_prefix = env_prefix
        self.file_values: dict[str, str] = {}
        if env_file is not None:
            if os.path.isfile(env_file):
                self.file_values = _read_env_file(Path(env_file), encoding)
            else:
                warnings.warn(f"Config file '{env_file}' not found.", stacklevel=2)

    @overload
    def __call__(self, key: str, *, default: None) -> str | None: ...
    @overload
    def __call__(self, key: str, cast: Callable[[Any], T], default: Any = ...) -> T: ...
    @overload
    def __call__(self, key: str, cast: None = None, default: Any = ...) -> Any: ...
    def __call__(
        self, key: str, cast: Callable[[Any], Any] | None = None, default: Any = undefined
    ) -> Any:
        return self.get(key, cast, default)

    def get(
        self, key: str, cast: Callable[[Any], Any] | None = None, default: Any = undefined
    ) -> Any:
        """The value of ``key``, cast by ``cast``; a KeyError if it is nowhere and has no
        default, a ValueError if it does not cast."""
        name = self.env_prefix + key
        if name in self.environ:
            return _cast(key, self.environ[name], cast)
        if name in self.file_values:
            return _cast(key, self.file_values[name], cast)
        if default is not undefined:
            return _cast(key, default, cast)
        raise KeyError(f"Config '{key}' is missing, and has no default.")


def _cast(key: str, value: Any, cast: Callable[[Any], Any] | None) -> Any:
    if cast is None or value is None:
        return value
    if cast is bool and isinstance(value, str):
        try:
            return _BOOLEANS[value.lower()]
        except KeyError:
            raise ValueError(f"Config '{key}' has value '{value}'. Not a valid bool.") from None
    try:
        return cast(value)
    except (TypeError, ValueError):
        name = getattr(cast, "__name__", repr(cast))
        raise ValueError(f"Config '{key}' has value '{value}'. Not a valid {name}.") from None


def _read_env_file(path: Path, encoding: str) -> dict[str, str]:
    """``KEY=value`` lines; ``#`` comments and lines without ``=`` are skipped, a value in
    matching quotes is taken from between them."""
    values = {}
    for text in path.read_text(encoding=encoding).splitlines():
        line = text.strip()
        if line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values
