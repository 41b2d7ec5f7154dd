"""/items: what the shop sells. Every route here asks for a token (the router's dependency)."""

from typing import Annotated

from pydantic import BaseModel

from hasten import APIRouter, Depends, HTTPException

from ..dependencies import require_token


class Item(BaseModel):
    name: str
    price: float


ITEMS = {"pen": Item(name="pen", price=1.5), "ink": Item(name="ink", price=4.0)}

router = APIRouter(
    prefix="/items",
    tags=["items"],
    dependencies=[Depends(require_token)],  # run before each route's handler
    responses={404: {"description": "Not found"}},  # documented on each route
)


@router.get("/")
async def list_items() -> list[Item]:
    return list(ITEMS.values())


@router.get("/{name}")
async def read_item(name: str) -> Item:
    if name not in ITEMS:
        raise HTTPException(status_code=404, detail="No such item")
    return ITEMS[name]


@router.put("/{name}", responses={403: {"description": "Readers cannot change prices"}})
async def set_price(name: str, price: float, role: Annotated[str, Depends(require_token)]) -> Item:
    if role != "admin":  # the router's require_token ran once: its value is reused here
        raise HTTPException(status_code=403, detail="Readers cannot change prices")
    ITEMS[name] = Item(name=name, price=price)
    return ITEMS[name]
