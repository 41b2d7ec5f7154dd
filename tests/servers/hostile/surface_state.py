"""What the two surfaces apps share, whatever their framework: the files they serve, the
counters ``/probe`` reports, and the sources, dependency and tasks their routes use.

``tests/servers/hostile/surfaces_app.py`` (hasten) and ``benchmarks/apps/fastapi_surfaces.py``
(FastAPI,
for the red-team table) are one app written twice; this is the part that needs no framework.
``$HOSTILE_SITE`` is the folder of the files they serve (a test truncates them).
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

SITE_ENV = "HOSTILE_SITE"
ALLOWED_ORIGIN = "https://app.example"
PROXY = "127.0.0.2"  # the one trusted proxy: a test connects from it
# shop.example is redirected to www.shop.example, the host allowed (TrustedHost's www_redirect).
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "app.example", "*.app.example", "www.shop.example"]
CHUNK = b"x" * 65536
# 64 KiB that gzip cannot shrink (its window is 32 KiB): a compressed stream of it is as big.
NOISE = random.Random(17).randbytes(65536)
BIG_FILE_SIZE = 16 * 1024 * 1024


def make_site(folder: Path) -> Path:
    """The files the app serves, under ``folder``: the site, and a secret beside it."""
    site = folder / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "small.txt").write_bytes(bytes(range(256)) * 4)  # 1,024 bytes
    big = site / "big.bin"
    if not big.exists() or big.stat().st_size != BIG_FILE_SIZE:
        big.write_bytes(os.urandom(1024) * (BIG_FILE_SIZE // 1024))
    (folder / "secret.txt").write_text("SECRET")
    for name, target in (("outside.txt", folder / "secret.txt"), ("up", folder)):
        link = site / name
        if not link.is_symlink():
            link.symlink_to(target)
    return site


FOLDER = Path(os.environ.get(SITE_ENV) or tempfile.mkdtemp(prefix="hasten-hostile-site-"))
SITE = make_site(FOLDER)

live: dict[str, int] = {
    "generators": 0,
    "closed": 0,
    "produced": 0,
    "entered": 0,
    "cleaned": 0,
    "websockets": 0,
    "sent": 0,
    "background": 0,
}
# How the last WebSocket of /ws/goodbye ended, as its handler was told.
last_close: dict[str, int | str] = {"code": 0, "reason": ""}


def spooled_files() -> int:
    """Upload files open in this worker: descriptors of files under the temporary folder."""
    folder = tempfile.gettempdir()
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        count += target.startswith(folder + os.sep)
    return count


def rss() -> int:
    """This worker's resident memory now, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


async def probe() -> dict[str, int | str]:
    """What is left in this worker: the counters, other tasks, spooled files, memory, and
    how the last WebSocket to /ws/goodbye ended."""
    current = asyncio.current_task()
    others = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    spooled = await asyncio.to_thread(spooled_files)
    return {
        **live,
        "tasks": len(others),
        "spooled": spooled,
        "rss": rss(),
        "close_code": last_close["code"],
        "close_reason": last_close["reason"],
    }


async def counted(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    live["generators"] += 1
    try:
        async for chunk in chunks:
            yield chunk
            live["produced"] += 1
    finally:
        live["generators"] -= 1
        live["closed"] += 1


async def fast(count: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield CHUNK


async def noise(count: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield NOISE


async def trickle() -> AsyncIterator[bytes]:
    while True:
        yield b"tick\n"
        await asyncio.sleep(0.01)


async def resource_held() -> AsyncIterator[str]:
    live["entered"] += 1
    try:
        yield "resource"
    finally:
        live["cleaned"] += 1


def failing_task() -> None:
    raise RuntimeError("the first background task fails")


async def counting_task() -> None:
    live["background"] += 1
