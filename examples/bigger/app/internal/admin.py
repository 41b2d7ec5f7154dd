"""A router the app includes under a prefix and dependencies it chooses (main.py)."""

from hasten import APIRouter

from ..routers import items, users

router = APIRouter()


@router.get("/stats")
async def stats() -> dict[str, int]:
    return {"users": len(users.USERS), "items": len(items.ITEMS)}
