"""Check a TechEmpower (TFB) implementation against TFB's rules, one test type at a time.

    python benchmarks/tfb/verify.py http://127.0.0.1:8000
    python benchmarks/tfb/verify.py http://127.0.0.1:8000 --database-url postgresql://...
    python benchmarks/tfb/verify.py http://127.0.0.1:8000 --only json fortunes \\
        --path queries=/queries/?n=

Each test type is printed as PASS or FAIL with the reasons; the exit code is 1 when any fails.
What is checked, on every answer: status 200, exactly one ``Server`` and one ``Date`` (an
HTTP date, and a fresh one: two answers a second apart differ), exactly one content type of
the test type's kind, a ``Content-Length`` equal to the body's length (or chunked), no
compression; and per test type:

- json: ``{"message": "Hello, World!"}`` and nothing else;
- plaintext: ``Hello, World!``, also 16 requests pipelined on one connection;
- db: ``{"id", "randomNumber"}``, both from 1 to 10,000, ids that vary;
- queries, updates, cached-queries: ``queries`` (``count``) 2, 0, foo, 501, empty and missing
  give 2, 1, 1, 500, 1 and 1 such objects;
- fortunes: the HTML parsed: the title, a header row and the 13 fortunes (TFB's 12 and the one
  added at request time) in order, each message exactly the text, so escaped exactly as much
  as it must be (an unescaped ``<script>`` is a tag, a doubly escaped one is other text);
- updates: persisted, read back through ``/queries`` (ids in common with a 500-row update).

With ``--database-url`` (TFB's PostgreSQL, as ``pg.sh`` starts it), the rows are also compared
with the database, updates are read back from it, and where ``pg_stat_statements`` is loaded the
queries are counted: one ``SELECT`` per row read, one row written per row updated.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import re
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

TEST_TYPES = ("json", "plaintext", "db", "queries", "fortunes", "updates", "cached-queries")
DEFAULT_PATHS = {
    "json": "/json",
    "plaintext": "/plaintext",
    "db": "/db",
    "queries": "/queries?queries=",
    "fortunes": "/fortunes",
    "updates": "/updates?queries=",
    "cached-queries": "/cached-queries?count=",
}
CONTENT_TYPES = {
    "json": re.compile(r"application/json(; ?charset=utf-8)?", re.IGNORECASE),
    "plaintext": re.compile(r"text/plain(; ?charset=utf-8)?", re.IGNORECASE),
    "html": re.compile(r"text/html; ?charset=utf-8", re.IGNORECASE),
}
# (value of queries/count, objects expected); None: the parameter left out.
COUNT_CASES: tuple[tuple[str | None, int], ...] = (
    ("2", 2),
    ("0", 1),
    ("foo", 1),
    ("501", 500),
    ("", 1),
    (None, 1),
)
WORLD_ROWS = 10_000
PIPELINED = 16
TIMEOUT = 10.0
FORTUNES = (
    (1, "fortune: No such file or directory"),
    (2, "A computer scientist is someone who fixes things that aren't broken."),
    (3, "After enough decimal places, nobody gives a damn."),
    (4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"),
    (5, "A computer program does what you tell it to do, not what you want it to do."),
    (6, "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"),
    (7, "Any program that runs right is obsolete."),
    (8, "A list is only as strong as its weakest link. — Donald Knuth"),
    (9, "Feature: A bug with seniority."),
    (10, "Computers make very fast, very accurate mistakes."),
    (11, '<script>alert("This should not be displayed in a browser alert box.");</script>'),
    (12, "フレームワークのベンチマーク"),
)
EXTRA_FORTUNE = (0, "Additional fortune added at request time.")
# Tags a fortunes page may hold; anything else (a <script> above all) fails it.
HTML_TAGS = {"html", "head", "title", "meta", "body", "table", "thead", "tbody", "tr", "th", "td"}


class Failed(Exception):
    """One reason a test type fails."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: list[tuple[str, str]]  # names lower-case, in order, repeated as sent
    body: bytes

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]


class Client:
    """GET requests on one keep-alive connection (reopened when the server closes it)."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"verify: {base_url!r} is not an http://HOST[:PORT] URL")
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self._connection: http.client.HTTPConnection | None = None

    def get(self, path: str) -> Reply:
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = http.client.HTTPConnection(self.host, self.port, TIMEOUT)
            try:
                self._connection.request("GET", self.prefix + path)
                response = self._connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if attempt == 2:
                    raise Failed(f"GET {path}: {exc!r}") from None
                continue
            headers = [(name.lower(), value) for name, value in response.getheaders()]
            if response.will_close:
                self.close()
            return Reply(response.status, headers, body)
        raise AssertionError("unreachable")

    def pipelined(self, path: str, count: int) -> bytes:
        """``count`` GETs of ``path`` sent at once on a fresh connection; what came back."""
        request = f"GET {self.prefix + path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode()
        received = b""
        with socket.create_connection((self.host, self.port), TIMEOUT) as sock:
            sock.sendall(request * count)
            deadline = time.monotonic() + TIMEOUT
            while received.count(b"HTTP/1.1 ") < count or not received.endswith(b"!"):
                if time.monotonic() > deadline:
                    break
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
        return received

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


# ---------------------------------------------------------------- what every answer must be


def check_reply(reply: Reply, path: str, kind: str) -> None:
    """Status, Server, Date, content type, length and encoding of one answer."""
    where = f"GET {path}"
    if reply.status != 200:
        raise Failed(f"{where}: status {reply.status}, not 200: {reply.body[:200]!r}")
    for name in ("server", "date", "content-type"):
        values = reply.all(name)
        if len(values) != 1:
            raise Failed(f"{where}: {len(values)} {name} headers, not exactly one: {values}")
    date = reply.all("date")[0]
    try:
        time.strptime(date, "%a, %d %b %Y %H:%M:%S GMT")
    except ValueError:
        raise Failed(f"{where}: Date {date!r} is not an HTTP date") from None
    content_type = reply.all("content-type")[0]
    if not CONTENT_TYPES[kind].fullmatch(content_type):
        raise Failed(f"{where}: content type {content_type!r}, not {kind}")
    lengths = reply.all("content-length")
    if not lengths and "chunked" not in ",".join(reply.all("transfer-encoding")).lower():
        raise Failed(f"{where}: neither Content-Length nor Transfer-Encoding")
    if lengths and lengths != [str(len(reply.body))]:
        raise Failed(f"{where}: Content-Length {lengths}, body of {len(reply.body)} bytes")
    if reply.all("content-encoding"):
        raise Failed(f"{where}: compressed ({reply.all('content-encoding')}); TFB forbids it")


def json_body(reply: Reply, path: str) -> Any:
    try:
        return json.loads(reply.body)
    except ValueError as exc:
        raise Failed(f"GET {path}: not JSON ({exc}): {reply.body[:200]!r}") from None


def check_world(item: Any, where: str) -> tuple[int, int]:
    """A World object: exactly ``id`` and ``randomNumber``, both from 1 to 10,000."""
    if not isinstance(item, dict) or set(item) != {"id", "randomNumber"}:
        raise Failed(f"{where}: {item!r:.120} is not {{'id': ..., 'randomNumber': ...}}")
    row_id, number = item["id"], item["randomNumber"]
    for name, value in (("id", row_id), ("randomNumber", number)):
        if type(value) is not int or not 1 <= value <= WORLD_ROWS:
            raise Failed(f"{where}: {name} {value!r} is not an integer from 1 to 10,000")
    return row_id, number


# ---------------------------------------------------------------- the database, when given


class Database:
    """Reads of TFB's database for the checks, each in its own short connection. The
    verifier's own queries are marked, so that the statement counts leave them out: a comment,
    and a shape of their own (PostgreSQL counts statements of the same shape as one, under the
    text it saw first)."""

    MARK = "/* hasten-verify */ "

    def __init__(self, url: str) -> None:
        self.url = url
        self.counting = self._run(self._has_statements)

    def _run(self, step: Callable[[Any], Any]) -> Any:
        async def run() -> Any:
            import asyncpg

            connection = await asyncpg.connect(self.url)
            try:
                return await step(connection)
            finally:
                await connection.close()

        return asyncio.run(run())

    async def _has_statements(self, connection: Any) -> bool:
        found = await connection.fetchval(
            self.MARK + "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"
        )
        return bool(found)

    def worlds(self) -> dict[int, int]:
        """Every World row: id -> randomNumber."""

        async def read(connection: Any) -> dict[int, int]:
            rows = await connection.fetch(
                self.MARK + "SELECT id, randomnumber, 'verify' AS mark FROM world"
            )
            return {row[0]: row[1] for row in rows}

        result: dict[int, int] = self._run(read)
        return result

    def fortunes(self) -> list[tuple[int, str]]:
        async def read(connection: Any) -> list[tuple[int, str]]:
            rows = await connection.fetch(
                self.MARK + "SELECT id, message, 'verify' AS mark FROM fortune"
            )
            return [(row[0], row[1]) for row in rows]

        result: list[tuple[int, str]] = self._run(read)
        return result

    def counts(self, table: str) -> tuple[int, int, int]:
        """(SELECT statements run, rows they read, rows UPDATEs wrote) on ``table`` so far."""

        async def read(connection: Any) -> tuple[int, int, int]:
            row = await connection.fetchrow(
                self.MARK + "SELECT"
                " coalesce(sum(calls) FILTER (WHERE query ~* '^\\s*select'), 0),"
                " coalesce(sum(rows) FILTER (WHERE query ~* '^\\s*select'), 0),"
                " coalesce(sum(rows) FILTER (WHERE query ~* '^\\s*update'), 0)"
                " FROM pg_stat_statements"
                " WHERE query ~* ('\\m' || $1 || '\\M') AND query NOT LIKE '%hasten-verify%'",
                table,
            )
            return int(row[0]), int(row[1]), int(row[2])

        result: tuple[int, int, int] = self._run(read)
        return result


# ---------------------------------------------------------------- the test types


class Verifier:
    def __init__(self, client: Client, paths: dict[str, str], database: Database | None) -> None:
        self.client = client
        self.paths = paths
        self.database = database
        self.notes: list[str] = []

    def get(self, path: str, kind: str) -> Reply:
        reply = self.client.get(path)
        check_reply(reply, path, kind)
        return reply

    def check_json(self) -> None:
        path = self.paths["json"]
        first = self.get(path, "json")
        self._check_message(json_body(first, path), path)
        time.sleep(1.05)
        second = self.get(path, "json")
        if second.all("date") == first.all("date"):
            raise Failed(f"GET {path}: the same Date a second later: {first.all('date')}")

    @staticmethod
    def _check_message(body: Any, path: str) -> None:
        if not isinstance(body, dict) or list(body) != ["message"]:
            raise Failed(f"GET {path}: {body!r:.120} is not {{'message': ...}} alone")
        if not isinstance(body["message"], str) or body["message"].lower() != "hello, world!":
            raise Failed(f"GET {path}: message {body['message']!r}, not 'Hello, World!'")

    def check_plaintext(self) -> None:
        path = self.paths["plaintext"]
        reply = self.get(path, "plaintext")
        if reply.body.lower() != b"hello, world!":
            raise Failed(f"GET {path}: body {reply.body[:100]!r}, not b'Hello, World!'")
        received = self.client.pipelined(path, PIPELINED)
        answered = received.count(b"HTTP/1.1 200 ")
        if answered != PIPELINED or received.lower().count(b"hello, world!") != PIPELINED:
            raise Failed(f"GET {path}: {answered} of {PIPELINED} pipelined requests answered")

    def check_db(self) -> None:
        path = self.paths["db"]
        stored = self.database.worlds() if self.database else None
        before = self._counts()
        seen = []
        for _ in range(10):
            item = json_body(self.get(path, "json"), path)
            if isinstance(item, list):
                raise Failed(f"GET {path}: a JSON array, not one object")
            row_id, number = check_world(item, f"GET {path}")
            self._compare(stored, row_id, number, path)
            seen.append(row_id)
        if len(set(seen)) == 1:
            raise Failed(f"GET {path}: the same id {seen[0]} ten times: not random")
        self._check_counts(before, path, selects=10, rows=10)

    def check_queries(self) -> None:
        stored = self.database.worlds() if self.database else None
        for path, items in self._count_cases("queries"):
            for item in items:
                row_id, number = check_world(item, f"GET {path}")
                self._compare(stored, row_id, number, path)
        path = self.paths["queries"] + "20"
        before = self._counts()
        self._worlds(path, 20)
        self._check_counts(before, path, selects=20, rows=20)

    def check_cached_queries(self) -> None:
        for path, items in self._count_cases("cached-queries"):
            for item in items:
                check_world(item, f"GET {path}")

    def check_updates(self) -> None:
        for path, items in self._count_cases("updates"):
            for item in items:
                check_world(item, f"GET {path}")
        if self.database is not None:
            self._check_updates_in_database()
        else:
            self._check_updates_through_queries()

    def _check_updates_in_database(self) -> None:
        assert self.database is not None
        path = self.paths["updates"] + "20"
        before_rows = self.database.worlds()
        before = self._counts()
        updated = dict(check_world(item, f"GET {path}") for item in self._worlds(path, 20))
        after_rows = self.database.worlds()
        for row_id, number in updated.items():
            if after_rows[row_id] != number:
                raise Failed(
                    f"GET {path}: id {row_id} answered randomNumber {number} but the database"
                    f" holds {after_rows[row_id]}: not persisted"
                )
        changed = sum(1 for row_id in updated if after_rows[row_id] != before_rows[row_id])
        if changed < 0.9 * len(updated):
            raise Failed(f"GET {path}: only {changed} of {len(updated)} rows changed")
        self._check_counts(before, path, selects=20, rows=20, updated=20)

    def _check_updates_through_queries(self) -> None:
        path = self.paths["updates"] + "500"
        updated = dict(check_world(item, f"GET {path}") for item in self._worlds(path, 500))
        read_back = 0
        for _ in range(3):
            query_path = self.paths["queries"] + "500"
            for item in self._worlds(query_path, 500):
                row_id, number = check_world(item, f"GET {query_path}")
                if row_id in updated:
                    read_back += 1
                    if updated[row_id] != number:
                        raise Failed(
                            f"GET {path} answered id {row_id} = {updated[row_id]}, but"
                            f" {query_path} reads {number}: not persisted"
                        )
            if read_back >= 10:
                return
        if not read_back:
            raise Failed(f"GET {path}: no updated row came back through {query_path}")

    def check_fortunes(self) -> None:
        path = self.paths["fortunes"]
        reply = self.get(path, "html")
        stored = self.database.fortunes() if self.database else list(FORTUNES)
        expected = sorted([*stored, EXTRA_FORTUNE], key=lambda fortune: fortune[1])
        try:
            text = reply.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Failed(f"GET {path}: not UTF-8: {exc}") from None
        page = FortunesPage()
        page.feed(text)
        page.close()
        page.check([(str(row_id), message) for row_id, message in expected], path)

    # helpers

    def _worlds(self, path: str, count: int) -> list[Any]:
        items = json_body(self.get(path, "json"), path)
        if not isinstance(items, list):
            raise Failed(f"GET {path}: {items!r:.80} is not a JSON array")
        if len(items) != count:
            raise Failed(f"GET {path}: {len(items)} objects, not {count}")
        return items

    def _count_cases(self, test: str) -> list[tuple[str, list[Any]]]:
        base = self.paths[test]
        cases = []
        for value, count in COUNT_CASES:
            path = base + value if value is not None else _without_last_parameter(base)
            cases.append((path, self._worlds(path, count)))
        return cases

    @staticmethod
    def _compare(stored: dict[int, int] | None, row_id: int, number: int, path: str) -> None:
        if stored is not None and stored[row_id] != number:
            raise Failed(
                f"GET {path}: id {row_id} answered randomNumber {number}, the database holds"
                f" {stored[row_id]}"
            )

    def _counts(self) -> tuple[int, int, int] | None:
        if self.database is None or not self.database.counting:
            return None
        return self.database.counts("world")

    def _check_counts(
        self,
        before: tuple[int, int, int] | None,
        path: str,
        *,
        selects: int,
        rows: int,
        updated: int = 0,
    ) -> None:
        if before is None:
            return
        assert self.database is not None
        after = self.database.counts("world")
        ran, read, wrote = (after[index] - before[index] for index in range(3))
        if ran < selects:
            raise Failed(f"GET {path}: {ran} SELECTs on world for {selects} rows: one query a row")
        if read < rows:
            raise Failed(f"GET {path}: {read} rows read from world, not {rows}")
        if wrote < updated:
            raise Failed(f"GET {path}: {wrote} rows updated in world, not {updated}")
        self.notes.append(f"{path}: {ran} SELECTs, {read} rows read, {wrote} rows updated")


def _without_last_parameter(path: str) -> str:
    """``/queries?queries=`` without its (last) parameter: ``/queries``."""
    head, sep, query = path.partition("?")
    if not sep:
        return path
    kept = "&".join(query.split("&")[:-1])
    return f"{head}?{kept}" if kept else head


class FortunesPage(HTMLParser):
    """The text of a fortunes page, cell by cell, and every tag it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.doctype = ""
        self.tags: list[str] = []
        self.title = ""
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._in_title = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_title:
            self.title += data

    def check(self, expected: list[tuple[str, str]], path: str) -> None:
        where = f"GET {path}"
        if self.doctype.lower() != "doctype html":
            raise Failed(f"{where}: no <!DOCTYPE html> (found {self.doctype!r})")
        unexpected = sorted(set(self.tags) - HTML_TAGS)
        if unexpected:
            raise Failed(f"{where}: tags {unexpected} in the page: a message is not escaped")
        if self.title != "Fortunes":
            raise Failed(f"{where}: title {self.title!r}, not 'Fortunes'")
        if not self.rows or self.rows[0] != ["id", "message"]:
            raise Failed(f"{where}: the first row is {self.rows[:1]}, not ['id', 'message']")
        got = [tuple(row) for row in self.rows[1:]]
        if len(got) != len(expected):
            raise Failed(f"{where}: {len(got)} fortunes, not {len(expected)}")
        for index, (row, want) in enumerate(zip(got, expected, strict=True)):
            if row != want:
                raise Failed(f"{where}: row {index + 1} is {row!r}, not {want!r}")


# ---------------------------------------------------------------- the command

CHECKS: dict[str, Callable[[Verifier], None]] = {
    "json": Verifier.check_json,
    "plaintext": Verifier.check_plaintext,
    "db": Verifier.check_db,
    "queries": Verifier.check_queries,
    "fortunes": Verifier.check_fortunes,
    "updates": Verifier.check_updates,
    "cached-queries": Verifier.check_cached_queries,
}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("base_url", metavar="BASE_URL", help="e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--database-url", metavar="URL", help="TFB's database: compare rows, count queries"
    )
    parser.add_argument("--only", nargs="+", choices=TEST_TYPES, metavar="TEST", help="these")
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="TEST=PATH",
        help="a test type's path when it is not the default (e.g. queries=/queries?queries=)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    paths = dict(DEFAULT_PATHS)
    for item in args.path:
        test, equals, path = item.partition("=")
        if not equals or test not in paths:
            raise SystemExit(f"verify: --path {item!r} is not TEST=PATH, TEST one of {TEST_TYPES}")
        paths[test] = path
    database = Database(args.database_url) if args.database_url else None
    verifier = Verifier(Client(args.base_url), paths, database)
    failures = 0
    for test in args.only or TEST_TYPES:
        try:
            CHECKS[test](verifier)
        except Failed as exc:
            failures += 1
            print(f"FAIL {test}: {exc}", flush=True)
        else:
            print(f"PASS {test}", flush=True)
    if database is not None and not database.counting:
        verifier.notes.append("queries not counted: pg_stat_statements is not loaded")
    for note in verifier.notes:
        print(f"  {note}")
    verifier.client.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
