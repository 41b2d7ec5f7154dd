"""Rate limiting with the ``limits`` library: a dependency that allows so many requests per
client in a moving window, and answers 429 with Retry-After past it.

The counts are kept in memory, per worker process: with ``--workers N`` or several machines,
share them in Redis or memcached instead (``storage_from_string("async+redis://host:6379")``).
Behind a proxy, ``ProxyHeadersMiddleware`` makes ``request.client`` the real client.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable

from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from hasten import Depends, FastAPI, HTTPException, Request

storage = MemoryStorage()
limiter = MovingWindowRateLimiter(storage)


def rate_limit(limit: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency allowing ``limit`` ("5/minute", "100/hour") per client and route."""
    item = parse(limit)  # a bad limit fails here, when the route is declared

    async def check(request: Request) -> None:
        client = request.client.host if request.client else "unknown"
        if not await limiter.hit(item, request.url.path, client):
            window = await limiter.get_window_stats(item, request.url.path, client)
            retry = max(1, math.ceil(window.reset_time - time.time()))
            raise HTTPException(
                status_code=429,
                detail=f"Rate limit exceeded: {limit}",
                headers={"Retry-After": str(retry)},
            )

    return check


app = FastAPI()


@app.get("/search", dependencies=[Depends(rate_limit("5/minute"))])
async def search(q: str = "") -> dict[str, object]:
    return {"q": q, "results": []}


@app.get("/health")  # no limit
async def health() -> dict[str, str]:
    return {"status": "ok"}
