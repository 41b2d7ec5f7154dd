"""The app: it includes each router. Serve it from examples/bigger (`hasten run app.main:app`)
or from the checkout's root (`hasten run examples.bigger.app.main:app`)."""

from hasten import Depends, FastAPI

from .dependencies import require_admin
from .internal import admin
from .routers import items, users

app = FastAPI(title="Bigger application")

app.include_router(users.router)  # app.include(users.router) for short
app.include_router(items.router)
app.include_router(
    admin.router,
    prefix="/admin",  # the router has no prefix of its own: the app chooses it
    tags=["admin"],
    dependencies=[Depends(require_admin)],
    responses={403: {"description": "Admins only"}},
)


@app.get("/")
async def root() -> dict[str, list[str]]:
    return {"parts": ["users", "items", "admin"]}
