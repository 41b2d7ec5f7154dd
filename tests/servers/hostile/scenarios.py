"""What one hostile request cannot show, on the surfaces app: clients that hang up, stall or
flood, many connections at once, files changed under the server, and what is left in the
worker afterwards (``/probe``). One function per scenario, used by the suite (which asserts
on what it returns) and by ``benchmarks/redteam.py`` (which prints it).

Each returns a ``Seen``: what happened, as numbers and words, and one line for the table.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from tests.servers.hostile.cases import request
from tests.servers.hostile.surface_cases import multipart, part
from tests.servers.hostile.websocket import (
    BINARY,
    CLOSE,
    PING,
    TEXT,
    Frame,
    close_frame,
    frame,
    handshake,
    upgrade,
)
from tests.servers.hostile.wire import HOST, Outcome, exchange, parse

__all__ = ["SCENARIOS", "Seen", "probe", "settle"]

MIB = 1024 * 1024


@dataclass
class Seen:
    """What a scenario saw: named facts (the suite asserts on them) and the table's cell."""

    facts: dict[str, Any] = field(default_factory=dict)
    cell: str = ""

    def __str__(self) -> str:
        return self.cell


def probe(port: int) -> dict[str, Any]:
    """What is left in the worker: ``/probe``."""
    outcome = exchange(port, request("/probe"), wait=5.0)
    found: dict[str, Any] = json.loads(outcome.body)
    return found


def settle(port: int, seconds: float = 5.0, **wanted: int) -> dict[str, int]:
    """Poll ``/probe`` until it shows ``wanted`` (at most ``seconds``); what it last showed."""
    deadline = time.monotonic() + seconds
    seen = probe(port)
    while time.monotonic() < deadline and any(seen[k] != v for k, v in wanted.items()):
        time.sleep(0.05)
        seen = probe(port)
    return seen


@contextlib.contextmanager
def connection(port: int, source: str = HOST) -> Iterator[socket.socket]:
    sock = socket.create_connection((HOST, port), timeout=5.0, source_address=(source, 0))
    try:
        yield sock
    finally:
        sock.close()


def rss_mib(port: int) -> float:
    return float(probe(port)["rss"]) / MIB


# Forms and uploads: the spooled files left open afterwards.
def upload(size: int, target: str = "/upload") -> bytes:
    return multipart(target, (part(data=b"u" * size, filename="big.bin"),))


def spooled_after(port: int, data: bytes, *, hang_up_after: int | None = None) -> Seen:
    """Send ``data`` (only its first ``hang_up_after`` bytes, then hang up); then the
    spooled files left in the worker once it settled."""
    status = "hung up"
    if hang_up_after is None:
        status = str(exchange(port, data, wait=10.0))
    else:
        with connection(port) as sock:
            sock.sendall(data[:hang_up_after])
            time.sleep(0.3)  # the worker is reading the body, a file spooled
    time.sleep(0.2)
    left = settle(port, spooled=0)["spooled"]
    return Seen({"status": status, "spooled": left}, f"{status}; {left} files left open")


def spooled_after_upload(port: int) -> Seen:
    return spooled_after(port, upload(MIB))


def spooled_after_handler_error(port: int) -> Seen:
    return spooled_after(port, upload(MIB, "/upload/fail"))


def spooled_after_hang_up_mid_body(port: int) -> Seen:
    return spooled_after(port, upload(4 * MIB), hang_up_after=2 * MIB)


def spooled_after_hang_up_in_handler(port: int) -> Seen:
    """The whole body sent, then gone while the handler still holds the file."""
    data = upload(MIB, "/upload/slow")
    with connection(port) as sock:
        sock.sendall(data)
        time.sleep(0.2)
    time.sleep(1.2)  # the handler ends; its response finds no client
    left = settle(port, spooled=0)["spooled"]
    return Seen({"spooled": left}, f"{left} files left open")


UPLOADERS = 4
UPLOAD_SIZE = 16 * MIB


def concurrent_large_uploads(port: int) -> Seen:
    """4 uploads of 16 MiB at once: the worker's memory meanwhile (they spool to disk)."""
    before = rss_mib(port)
    data = upload(UPLOAD_SIZE)
    statuses: list[str] = []
    threads = [
        threading.Thread(target=lambda: statuses.append(str(exchange(port, data, wait=30.0))))
        for _ in range(UPLOADERS)
    ]
    for thread in threads:
        thread.start()
    peak = before
    while any(thread.is_alive() for thread in threads):
        peak = max(peak, rss_mib(port))
        time.sleep(0.05)
    grew = peak - before
    spooled = settle(port, spooled=0)["spooled"]
    cell = f"{'/'.join(sorted(set(statuses)))}; RSS +{grew:.0f} MiB for {UPLOADERS} x 16 MiB"
    return Seen({"statuses": statuses, "grew_mib": grew, "spooled": spooled}, cell)


# Files: changed under the server while it sends them.
FILE_SIZE = 16 * MIB


def file_changed_while_sent(port: int, site: Path, change: Callable[[Path], None]) -> Seen:
    """GET a 16 MiB file, read 1 MiB, ``change`` it, then read on: what the client got."""
    path = site / "doomed.bin"
    path.write_bytes(b"d" * FILE_SIZE)
    with connection(port) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(request("/static/doomed.bin"))
        received = b""
        while len(received) < MIB:
            received += sock.recv(65536)
        change(path)
        sock.settimeout(3.0)
        ending = "closed"
        try:
            while chunk := sock.recv(MIB):
                received += chunk
        except TimeoutError:
            ending = "silent"
        except ConnectionResetError:
            ending = "reset"
    head, _, body = received.partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1].decode()
    declared = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    path.unlink(missing_ok=True)
    cell = f"{status}; {len(body) / MIB:.1f} of {declared / MIB:.0f} MiB, then {ending}"
    return Seen({"status": status, "body": len(body), "declared": declared, "ending": ending}, cell)


def truncate(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(2 * MIB)


def file_truncated_while_sent(port: int, site: Path) -> Seen:
    return file_changed_while_sent(port, site, truncate)


def file_deleted_while_sent(port: int, site: Path) -> Seen:
    return file_changed_while_sent(port, site, Path.unlink)


# WebSockets.
def ws_close(port: int, *frames: bytes, wait: float = 3.0) -> Seen:
    """Upgrade /ws/echo, send ``frames``: how the server ended it (a close frame's code)."""
    with upgrade(port, handshake()) as ws:
        sent = all(ws.send(item) for item in frames)
        got, ending = ws.frames(wait=wait, limit=10**6)
    closes = [item for item in got if item.opcode == CLOSE]
    code = closes[0].close_code if closes else None
    if code is not None:
        cell = f"close {code}"
    elif closes:
        cell = "close frame without a code"
    else:
        cell = ending
    return Seen({"code": code, "ending": ending, "sent": sent, "frames": len(got)}, cell)


def ws_message_past_max(port: int) -> Seen:
    return ws_close(port, frame(TEXT, b"m" * 70_000))


def ws_frame_claiming_an_exabyte(port: int) -> Seen:
    return ws_close(port, frame(BINARY, b"x" * 1000, length=1 << 60))


def ws_fragments_past_max(port: int) -> Seen:
    pieces = [frame(TEXT, b"f" * 1024, fin=False)]
    pieces += [frame(0x0, b"f" * 1024, fin=False) for _ in range(98)]
    pieces.append(frame(0x0, b"f" * 1024))
    return ws_close(port, b"".join(pieces))


def ws_tiny_fragments(port: int) -> Seen:
    """100,000 fragments of one byte (100 KB, past the 64 KiB limit)."""
    pieces = [frame(TEXT, b"t", fin=False)]
    pieces += [frame(0x0, b"t", fin=False) for _ in range(99_998)]
    pieces.append(frame(0x0, b"t"))
    started = time.monotonic()
    seen = ws_close(port, b"".join(pieces), wait=10.0)
    seen.cell += f" after {time.monotonic() - started:.1f} s"
    return seen


PINGS = 100_000


def ws_ping_flood(port: int) -> Seen:
    """100,000 pings, their pongs never read: the worker's memory after."""
    before = rss_mib(port)
    with upgrade(port, handshake()) as ws:
        ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        pings = frame(PING, b"p" * 100) * 1000
        sent = sum(ws.send(pings) for _ in range(PINGS // 1000)) * 1000
        time.sleep(0.5)
        grew = rss_mib(port) - before
        ws.send(frame(TEXT, b"still there?"))
        got, _ = ws.frames(wait=3.0, limit=10**6)
    echoed = any(item.opcode == TEXT and item.payload == b"still there?" for item in got)
    cell = f"RSS +{grew:.0f} MiB; {'echoes after' if echoed else 'no echo after'}"
    return Seen({"grew_mib": grew, "echoed": echoed, "sent": sent}, cell)


def ws_slow_reader(port: int) -> Seen:
    """/ws/flood sends 64 KiB messages as fast as it may; the client reads nothing for 2 s."""
    before = rss_mib(port)
    with upgrade(port, handshake("/ws/flood")) as ws:
        ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        time.sleep(2.0)
        seen = probe(port)
    grew = seen["rss"] / MIB - before
    ended = settle(port, 1.0, websockets=0)["websockets"] == 0
    settle(port, websockets=0)  # the handler gives up after 4 s in any case
    cell = f"{seen['sent']} messages sent ahead; RSS +{grew:.0f} MiB; "
    cell += (
        "handler ended with the client" if ended else "handler kept sending after the client left"
    )
    return Seen({"sent": seen["sent"], "grew_mib": grew, "ended": ended}, cell)


IDLE_SOCKETS = 1000


def ws_idle_sockets(port: int) -> Seen:
    """1,000 WebSockets open and silent, then a new client's /hello."""
    before = rss_mib(port)
    opened = []
    try:
        for _ in range(IDLE_SOCKETS):
            ws = upgrade(port, handshake("/ws/idle"))
            opened.append(ws)
        held = settle(port, websockets=IDLE_SOCKETS)["websockets"]
        grew = rss_mib(port) - before
        hello = exchange(port, request("/hello"))
    finally:
        for ws in opened:
            ws.close()
    settle(port, websockets=0)
    per_socket = grew * 1024 / max(held, 1)
    cell = f"{held} open, {per_socket:.0f} KiB each; /hello {hello} in {hello.seconds:.2f} s"
    return Seen(
        {"held": held, "grew_mib": grew, "hello": hello.status, "seconds": hello.seconds}, cell
    )


def close_waiting(port: int, client_port: int) -> int:
    """The server's sockets on ``port`` to ``client_port`` in CLOSE-WAIT: the client closed
    and left, the server still holds the socket (and its descriptor)."""
    return sum(
        1
        for found in psutil.net_connections("tcp")
        if found.status == psutil.CONN_CLOSE_WAIT
        and found.laddr
        and found.laddr.port == port
        and found.raddr
        and found.raddr.port == client_port
    )


def describe_close(closes: list[Frame], ending: str) -> str:
    if not closes:
        return ending
    code, reason = closes[0].close_code, closes[0].close_reason
    if code is None:
        return "close frame without a code"
    return f"close {code} {reason!r}" if reason else f"close {code}"


def ws_ending(port: int, path: str, *frames: bytes) -> Seen:
    """Upgrade ``path`` and send ``frames``: the server's close frame; then the client
    answers it, as RFC 6455 asks, and the server should close the TCP connection at once
    (within a second); then the client leaves: is the server's socket left in CLOSE-WAIT?"""
    with upgrade(port, handshake(path)) as ws:
        client_port = ws.sock.getsockname()[1]
        for item in frames:
            ws.send(item)
        got, ending = ws.frames(wait=3.0)
        closes = [item for item in got if item.opcode == CLOSE]
        ws.send(close_frame(1000))
        tcp = ws.ending(1.0) if ending == "close frame" else ending
        if ending == "close frame" and tcp == "reset":
            # The server closed the TCP connection before the client's answer reached it,
            # and its kernel answered that with a reset: closed at once all the same (which
            # of the two the client sees is a race).
            tcp = "closed"
    time.sleep(0.3)
    waiting = close_waiting(port, client_port)
    code = closes[0].close_code if closes else None
    reason = closes[0].close_reason if closes else ""
    cell = f"{describe_close(closes, ending)}; TCP {tcp}; {waiting} left in CLOSE-WAIT"
    return Seen({"code": code, "reason": reason, "tcp": tcp, "close_wait": waiting}, cell)


def ws_handler_raises(port: int) -> Seen:
    return ws_ending(port, "/ws/raise", frame(TEXT, b"boom"))


def ws_invalid_json(port: int) -> Seen:
    return ws_ending(port, "/ws/json", frame(TEXT, b"{not json"))


def ws_handler_closes_with_a_code(port: int) -> Seen:
    return ws_ending(port, "/ws/close", frame(TEXT, b"close, please"))


def ws_client_closes_with_a_code(port: int) -> Seen:
    """The client closes with 4001 "done": what the handler was told, and the server's
    answer to the close."""
    with upgrade(port, handshake("/ws/goodbye")) as ws:
        ws.send(close_frame(4001, "done"))
        got, ending = ws.frames(wait=3.0)
    told = settle(port, 2.0, close_code=4001)
    closes = [item for item in got if item.opcode == CLOSE]
    cell = (
        f"handler told {told['close_code']} {told['close_reason']!r}; "
        f"server answered {describe_close(closes, ending)}"
    )
    return Seen({"code": told["close_code"], "reason": told["close_reason"]}, cell)


def ws_subprotocols(port: int) -> Seen:
    """The client offers v1 and v2; /ws/chat takes the last one offered."""
    offer = (("Sec-WebSocket-Protocol", "v1, v2"),)
    with upgrade(port, handshake("/ws/chat", headers=offer)) as ws:
        status = ws.outcome.status
        chosen = ws.outcome.headers.get("sec-websocket-protocol")
        got, _ = ws.frames(wait=2.0, limit=1) if status == 101 else ([], "")
    said = got[0].payload.decode(errors="replace") if got else None
    cell = f"{ws.outcome}, subprotocol {chosen}" if status == 101 else str(ws.outcome)
    return Seen({"status": status, "subprotocol": chosen, "said": said}, cell)


# Streams and Server-Sent Events.
GZIP = (("Accept-Encoding", "gzip"),)


def stalled_reader(port: int, target: str, headers: tuple[tuple[str, str], ...] = ()) -> Seen:
    """GET ``target`` (a fast source of 64 KiB chunks), read nothing for 1.5 s."""
    before = rss_mib(port)
    with connection(port) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(request(target, headers=headers))
        time.sleep(1.5)
        seen = probe(port)
    grew = seen["rss"] / MIB - before
    settle(port, generators=0)
    cell = f"{seen['produced']} chunks of 64 KiB produced; RSS +{grew:.0f} MiB"
    return Seen({"produced": seen["produced"], "grew_mib": grew}, cell)


def stalled_stream(port: int) -> Seen:
    return stalled_reader(port, "/stream?count=1000")


def stalled_events(port: int) -> Seen:
    return stalled_reader(port, "/events?count=1000")


def stalled_mounted_stream(port: int) -> Seen:
    return stalled_reader(port, "/mounted/stream?count=1000")


def stalled_gzip_stream(port: int) -> Seen:
    """A stream that gzip cannot shrink, through GZipMiddleware, to a client that stalls."""
    return stalled_reader(port, "/stream/noise?count=1000", GZIP)


def left_mid_stream(port: int, read: Callable[[], dict[str, Any]]) -> Seen:
    """``read()`` an endless stream, then hang up: the generator and its tasks go."""
    baseline = settle(port, generators=0)
    facts = read()
    after = settle(port, generators=0, tasks=baseline["tasks"])
    closed = after["closed"] - baseline["closed"]
    left = after["tasks"] - baseline["tasks"]
    facts |= {"closed": closed, "generators": after["generators"], "tasks": left}
    cell = f"{closed} generator closed, {after['generators']} open, {left} tasks left"
    return Seen(facts, cell)


def vanishing_client(port: int) -> Seen:
    """GET an endless stream, read a little, hang up."""

    def read() -> dict[str, Any]:
        with connection(port) as sock:
            sock.sendall(request("/stream/endless"))
            received = b""
            while received.count(b"tick") < 5:
                received += sock.recv(4096)
        return {}

    return left_mid_stream(port, read)


def gzip_stream_read_as_it_comes(port: int) -> Seen:
    """GET an endless stream with ``Accept-Encoding: gzip``, decompress five ticks as they
    arrive (a stream compressed whole would never arrive), then hang up."""

    def read() -> dict[str, Any]:
        url = f"http://{HOST}:{port}/stream/endless"
        ticks = 0
        with httpx.stream("GET", url, headers=dict(GZIP), timeout=5.0) as response:
            encoding = response.headers.get("content-encoding")
            with contextlib.suppress(httpx.ReadTimeout):
                for data in response.iter_bytes():  # decompressed, chunk by chunk
                    ticks += data.count(b"tick")
                    if ticks >= 5:
                        break
        return {"encoding": encoding, "ticks": min(ticks, 5)}

    seen = left_mid_stream(port, read)
    ticks, encoding = seen.facts["ticks"], seen.facts["encoding"]
    seen.cell = f"{encoding}, {ticks} ticks read as they came; {seen.cell}"
    return seen


# Control endpoints.
def metric_series(port: int) -> set[str] | None:
    """The label sets of /metrics' ``http_requests_total`` (None: no metrics)."""
    outcome = exchange(port, request("/metrics"), wait=5.0)
    if outcome.status != 200:
        return None
    return {
        line.split("{", 1)[1].split("}", 1)[0]
        for line in outcome.body.decode().splitlines()
        if line.startswith("http_requests_total{")
    }


def label_cardinality(port: int) -> Seen:
    """300 requests to invented paths with 30 invented methods: the series /metrics adds."""
    before = metric_series(port) or set()
    rng = random.Random(17)
    methods = [f"M{index}X" for index in range(30)]
    for index in range(300):
        path = f"/{rng.getrandbits(64):x}/{index}"
        exchange(port, request(path, method=rng.choice([*methods, "GET", "POST"])))
    series = metric_series(port)
    if series is None:
        return Seen({"added": None}, "no metrics")
    added = series - before
    invented = sum("M" in labels and "X" in labels for labels in added)
    cell = f"{len(added)} series added by 300 invented paths ({invented} with invented methods)"
    return Seen({"added": len(added), "invented": invented}, cell)


# Middleware.
def through_the_trusted_proxy(port: int, data: bytes) -> Outcome:
    """Send ``data`` from 127.0.0.2, the one trusted proxy: what came back."""
    with connection(port, source="127.0.0.2") as sock:
        sock.sendall(data)
        received = b""
        with contextlib.suppress(TimeoutError):
            while chunk := sock.recv(65536):
                received += chunk
    return parse(received, "closed")


def forwarded_by_the_trusted_proxy(port: int) -> Seen:
    """X-Forwarded-For from the trusted proxy."""
    body = through_the_trusted_proxy(
        port, request("/who", headers=(("X-Forwarded-For", "203.0.113.9"),))
    ).body
    client = json.loads(body)["client"] if body.startswith(b"{") else None
    return Seen({"client": client}, f"client {client}")


def forwarded_host(port: int, host: str) -> Seen:
    """X-Forwarded-Host ``host`` from the trusted proxy, to a route that answers its url_for."""
    outcome = through_the_trusted_proxy(
        port, request("/link", headers=(("X-Forwarded-Host", host),))
    )
    facts = {"status": outcome.status, "body": outcome.body}
    if outcome.status == 200:
        return Seen(facts, f"200, url_for {json.loads(outcome.body)['url']}")
    return Seen(facts, str(outcome))


def forwarded_host_of_the_site(port: int) -> Seen:
    return forwarded_host(port, "app.example")


def forwarded_host_with_user_information(port: int) -> Seen:
    return forwarded_host(port, "app.example:@evil.example")


# Dependencies, overload, background tasks.
def cleanup_after_hang_up(port: int) -> Seen:
    """GET a handler holding a yield dependency, hang up while it runs."""
    before = probe(port)
    with connection(port) as sock:
        sock.sendall(request("/deps/slow"))
        time.sleep(0.2)
    after = settle(port, 3.0, cleaned=before["entered"] + 1)
    entered = after["entered"] - before["entered"]
    cleaned = after["cleaned"] - before["cleaned"]
    return Seen(
        {"entered": entered, "cleaned": cleaned}, f"{entered} entered, {cleaned} cleaned up"
    )


def cleanup_under_overload(port: int) -> Seen:
    """6 requests at once to a route that takes one at a time."""
    before = probe(port)
    statuses: list[int | None] = []
    threads = [
        threading.Thread(
            target=lambda: statuses.append(exchange(port, request("/deps/busy"), wait=5).status)
        )
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = settle(port, 3.0, cleaned=probe(port)["entered"])
    entered = after["entered"] - before["entered"]
    cleaned = after["cleaned"] - before["cleaned"]
    counted = {str(s): statuses.count(s) for s in sorted(set(statuses), key=str)}
    answers = ", ".join(f"{count} x {status}" for status, count in counted.items())
    cell = f"{answers}; {entered} entered, {cleaned} cleaned up"
    return Seen({"statuses": counted, "entered": entered, "cleaned": cleaned}, cell)


def background_after_a_failing_task(port: int) -> Seen:
    before = probe(port)["background"]
    outcome = exchange(port, request("/signup", method="POST", headers=(("Content-Length", "0"),)))
    ran = settle(port, 3.0, background=before + 1)["background"] - before
    return Seen({"status": outcome.status, "ran": ran}, f"{outcome}; the next task ran: {ran == 1}")


# (name, scenario): the site folder is given to those that change files.
SCENARIOS: list[tuple[str, Callable[..., Seen]]] = [
    ("upload of 1 MiB: spooled files left", spooled_after_upload),
    ("upload to a handler that raises: spooled files left", spooled_after_handler_error),
    ("client hangs up mid-upload: spooled files left", spooled_after_hang_up_mid_body),
    ("client hangs up in the handler: spooled files left", spooled_after_hang_up_in_handler),
    ("4 concurrent uploads of 16 MiB", concurrent_large_uploads),
    ("a file truncated while it is sent", file_truncated_while_sent),
    ("a file deleted while it is sent", file_deleted_while_sent),
    ("WebSocket: a 70 KB message (limit 64 KiB)", ws_message_past_max),
    ("WebSocket: a frame claiming 2^60 bytes", ws_frame_claiming_an_exabyte),
    ("WebSocket: 100 fragments of 1 KB", ws_fragments_past_max),
    ("WebSocket: 100,000 fragments of 1 byte", ws_tiny_fragments),
    ("WebSocket: 100,000 pings, pongs unread", ws_ping_flood),
    ("WebSocket: fast sender, client reads nothing for 2 s", ws_slow_reader),
    ("WebSocket: 1,000 idle sockets, then /hello", ws_idle_sockets),
    ("WebSocket: the handler raises", ws_handler_raises),
    ("WebSocket: invalid JSON to receive_json", ws_invalid_json),
    ("WebSocket: the handler closes with 4000 'asked to'", ws_handler_closes_with_a_code),
    ("WebSocket: the client closes with 4001 'done'", ws_client_closes_with_a_code),
    ("WebSocket: subprotocols v1, v2 offered, v2 taken", ws_subprotocols),
    ("stream: client reads nothing for 1.5 s", stalled_stream),
    ("SSE: client reads nothing for 1.5 s", stalled_events),
    ("mounted ASGI app's stream: client reads nothing", stalled_mounted_stream),
    ("stream: client vanishes mid-stream", vanishing_client),
    ("gzip stream: client reads nothing for 1.5 s", stalled_gzip_stream),
    ("gzip stream: read as it comes, then the client vanishes", gzip_stream_read_as_it_comes),
    ("metrics: invented paths and methods", label_cardinality),
    ("X-Forwarded-For from the trusted proxy", forwarded_by_the_trusted_proxy),
    ("X-Forwarded-Host from the trusted proxy", forwarded_host_of_the_site),
    (
        "X-Forwarded-Host with user information, from the trusted proxy",
        forwarded_host_with_user_information,
    ),
    ("yield dependency: client hangs up in the handler", cleanup_after_hang_up),
    ("yield dependency under overload (6 at once, 1 allowed)", cleanup_under_overload),
    ("background tasks: the first one raises", background_after_a_failing_task),
]
