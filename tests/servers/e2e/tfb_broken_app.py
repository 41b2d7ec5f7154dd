"""A TFB implementation that breaks the rules verify.py checks, without a database: the
verifier must fail it, test type by test type (tests/servers/e2e/test_tfb.py)."""

from __future__ import annotations

from hasten import App, HTMLResponse, PlainTextResponse

app = App(openapi_url=None, docs_url=None)

FORTUNES = [(1, "fortune: No such file or directory"), (11, "<script>alert(1);</script>")]


@app.get("/json")
async def json() -> dict[str, str]:
    return {"message": "Hello, World!", "extra": "key"}


@app.get("/plaintext")
async def plaintext() -> PlainTextResponse:
    return PlainTextResponse("Hello, World!", headers={"content-type": "text/html"})


@app.get("/db")
async def single_query() -> dict[str, int]:
    return {"id": 10_001, "randomNumber": 1}


@app.get("/queries")
async def queries(queries: int = 1) -> list[dict[str, int]]:
    # An int parameter: "foo" answers 422, and nothing is clamped.
    return [{"id": n + 1, "randomNumber": 1} for n in range(queries)]


@app.get("/fortunes")
async def fortunes() -> HTMLResponse:
    rows = "".join(f"<tr><td>{id}</td><td>{message}</td></tr>" for id, message in FORTUNES)
    return HTMLResponse(
        f"<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
        f"<tr><th>id</th><th>message</th></tr>{rows}</table></body></html>"
    )


@app.get("/updates")
async def updates(queries: str = "1") -> list[dict[str, int]]:
    # Clamped, but never written: a later read disagrees.
    count = max(1, min(500, int(queries) if queries.isdigit() else 1))
    return [{"id": n + 1, "randomNumber": 10_000 - n} for n in range(count)]


@app.get("/cached-queries")
async def cached_queries(count: str = "1") -> list[dict[str, int]]:
    return [{"id": 1, "randomNumber": 1}]
