"""No regular expression hasten runs can backtrack catastrophically (regexploit), and each
parser of client bytes takes time linear in their size.

regexploit finds the star-height ambiguity that makes a pattern's matching time polynomial
or exponential in its input. It predates Python 3.11's possessive repeats: a possessive repeat
of a single character class is read as that class (it takes a maximal run, so a repeat around
it has only one way to split a run), any other possessive repeat or atomic group as its greedy
form (a stricter reading than the engine's). What regexploit cannot see, a search restarted at
every position of a body, the timing properties below hold.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import multipart
import pytest

import hasten
from hasten._http import json_in

with warnings.catch_warnings():  # regexploit reads patterns with the deprecated sre_parse
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants

    from regexploit.ast.sre import SreOpParser
    from regexploit.redos import find

# Patterns whose input is not a client's: the app's own routes, messages and files.
NOT_CLIENT_INPUT = {"hasten._cli", "hasten.bench", "hasten.openapi", "hasten._served_as"}
# Importing it turns the switch on (fastapi and starlette served by hasten) for the process.
SWITCH = "hasten.as_fastapi"


class PossessiveAware(SreOpParser):  # type: ignore[misc]
    """regexploit's reader of a parsed pattern, taught Python 3.11's possessive repeats."""

    def from_POSSESSIVE_REPEAT(self, data: tuple[int, Any, list[Any]]) -> Any:
        minimum, _, elements = data
        if len(elements) == 1 and elements[0][0] in (sre_constants.IN, sre_constants.NOT_LITERAL):
            single = self.parse_op(*elements[0])
            return single if minimum > 0 else self.from_MAX_REPEAT((0, 1, elements))
        return self.from_MAX_REPEAT(data)

    def from_ATOMIC_GROUP(self, elements: list[Any]) -> Any:
        return self.sequence_or_singleton(elements)


def compiled_patterns() -> Iterator[tuple[str, re.Pattern[Any]]]:
    """Every pattern a module of hasten's or of the multipart parser holds, by its name."""
    names = [info.name for info in pkgutil.walk_packages(hasten.__path__, "hasten.")]
    for name in ["multipart", *names]:
        if name == SWITCH or any(name.startswith(prefix) for prefix in NOT_CLIENT_INPUT):
            continue
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if isinstance(value, re.Pattern):
                yield f"{name}.{attribute}", value
    # Made while the app runs, one per depth limit.
    yield "hasten._http.json_in._nested_at_most(3)", json_in._nested_at_most(3)


PATTERNS = dict(compiled_patterns())


def test_the_patterns_are_found() -> None:
    assert "hasten._http.json_in._LONE_SURROGATE" in PATTERNS
    assert "hasten._http.paths._UUID" in PATTERNS
    assert any(name.startswith("multipart.") for name in PATTERNS)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_no_pattern_backtracks_catastrophically(name: str) -> None:
    pattern = PATTERNS[name]
    source = pattern.pattern
    text = source.decode("latin-1") if isinstance(source, bytes) else source
    parsed = PossessiveAware().parse_sre(text, pattern.flags & ~re.UNICODE & ~re.ASCII)
    assert [redos.example() for redos in find(parsed)] == []


def test_the_reading_of_possessive_repeats_still_finds_what_it_should() -> None:
    # Nested repeats that backtrack, with and without a possessive repeat around them.
    for source in [r"(?:a+)+b", r"(?:[a-z]+\d*)++x", r"(?:x+x+)+y"]:
        assert find(PossessiveAware().parse_sre(source)), source
    # A possessive run of one class inside a repeat has one way to split its run.
    assert not find(PossessiveAware().parse_sre(r"(?:[a-z]++|\d)*y"))


# Linear time: each parser of client bytes, on the costliest inputs for it a red-team pass or
# a reading of its pattern found, at two sizes eight times apart. Linear time takes about 8 times
# as long; the quadratic depth check this replaced took 64 times.
def cpu_time(parse: Callable[[bytes], object], data: bytes) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        parse(data)
        best = min(best, time.process_time() - start)
    return best


class Limits:
    max_json_depth = 64
    max_json_size = 1 << 24


def check_depth(body: bytes) -> object:
    try:
        return json_in.decode_json(msgspec.json.decode, body, Limits())
    except hasten.HTTPError as error:
        return error


def costliest(size: int) -> dict[str, bytes]:
    return {
        "unterminated string of escaped quotes": b"[" * 65 + b'"' + b'\\"' * (size // 2),
        "the same, 64 deep": b"[" * 64 + b'"' + b'\\"' * (size // 2),
        "strings, each empty": b"[" * 64 + b'"",' * (size // 3),
        "escaped backslashes": b"[" * 64 + b'"' + b"\\\\" * (size // 2),
        "surrogate pairs, cut short": b"[" * 64 + b'"' + b"\\ud800\\udc00" * (size // 12),
        "brackets, each pair empty": b"[" + b"[]," * (size // 3) + b"[]]",
        "64 deep, over and over": b"[" + (b"[" * 63 + b"]" * 63 + b",") * (size // 128) + b"1]",
    }


@pytest.mark.parametrize("shape", list(costliest(0)))
def test_the_json_checks_take_linear_time(shape: str) -> None:
    small, large = costliest(128 * 1024)[shape], costliest(8 * 128 * 1024)[shape]
    ratio = cpu_time(check_depth, large) / max(cpu_time(check_depth, small), 1e-4)
    assert ratio < 24, f"{ratio:.1f} times as long for 8 times the bytes"


def test_the_lone_surrogate_search_takes_linear_time() -> None:
    def search(body: bytes) -> object:
        return json_in._LONE_SURROGATE.search(body)

    for body in (b"\\" * 131_072, b"a\\\\" * 43_690, b"\\ud800\\udc00" * 10_922):
        ratio = cpu_time(search, body * 8) / max(cpu_time(search, body), 1e-4)
        assert ratio < 24, (body[:12], ratio)


def test_multipart_parsing_takes_linear_time() -> None:
    def parse(data: bytes) -> object:
        parser = multipart.PushMultipartParser(b"b", max_segment_count=1_000_000)
        return list(parser.parse(data))

    head = b'--b\r\nContent-Disposition: form-data; name="f"\r\n\r\n'
    shapes: dict[str, Callable[[int], bytes]] = {
        "near boundaries": lambda n: head + b"\r\n--" * (n // 4) + b"\r\n--b--\r\n",
        "many small parts": lambda n: (head + b"v\r\n") * (n // 56) + b"--b--\r\n",
        "no boundary at all": lambda n: head + b"-" * n,
    }
    for shape, make in shapes.items():
        small, large = make(256 * 1024), make(8 * 256 * 1024)
        ratio = cpu_time(parse, large) / max(cpu_time(parse, small), 1e-4)
        assert ratio < 24, (shape, ratio)
