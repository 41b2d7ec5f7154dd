"""A FastAPI app with the extensions nearly every production app adds, each as its README
shows it, and nothing changed for hasten: served by ``hasten run --as-fastapi``
(tests/servers/e2e/test_extensions.py). It imports FastAPI's and Starlette's names, so it is
imported
only where the switch is on."""

from asgi_correlation_id import CorrelationIdMiddleware
from fastapi import FastAPI, Request
from prometheus_fastapi_instrumentator import Instrumentator
from slowapi import Limiter, _rate_limit_exceeded_handler
from slowapi.errors import RateLimitExceeded
from slowapi.middleware import SlowAPIMiddleware
from slowapi.util import get_remote_address

limiter = Limiter(key_func=get_remote_address, default_limits=["3/minute"])
app = FastAPI()
app.state.limiter = limiter
app.add_exception_handler(RateLimitExceeded, _rate_limit_exceeded_handler)
app.add_middleware(SlowAPIMiddleware)
app.add_middleware(CorrelationIdMiddleware)


@app.get("/hello")
@limiter.exempt
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/counted")
@limiter.exempt
async def counted() -> dict[str, bool]:
    return {"counted": True}


@app.get("/items/{item_id}")
async def item(item_id: int) -> dict[str, int]:
    return {"id": item_id}


@app.get("/search")
@limiter.limit("2/minute")
async def search(request: Request, q: str = "") -> dict[str, str]:
    return {"q": q}


Instrumentator().instrument(app).expose(app)
