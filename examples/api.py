"""A small inventory API: what the OpenAPI document and docs page describe, and what CI fuzzes.

Serve it with ``hasten run examples.api:app`` and open http://127.0.0.1:8000/docs (Swagger
UI, served offline with ``hasten[docs]``), or print its document: ``hasten openapi
examples.api:app``. CI runs Schemathesis against it: every answer must match the document.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, TypedDict

import msgspec

from hasten import (
    App,
    Body,
    Cookie,
    Header,
    HTMLResponse,
    HTTPError,
    Path,
    PlainTextResponse,
    Query,
    Router,
)

app = App(
    title="Inventory",
    version="1.0.0",
    description="Items, their stock and orders: a small API to show hasten's OpenAPI.",
    openapi_tags=[
        {"name": "items", "description": "What the shop sells."},
        {"name": "orders", "description": "What customers buy."},
    ],
)

ItemId = Annotated[int, Path(ge=1, le=1_000_000, description="The item's number.")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=50, examples=["Teapot"])]
Price = Annotated[float, msgspec.Meta(ge=0, le=1_000_000)]
Stock = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class Category(enum.Enum):
    KITCHEN = "kitchen"
    GARDEN = "garden"
    TOOLS = "tools"


class NewItem(msgspec.Struct, forbid_unknown_fields=True):
    """An item to add: its name, price and category."""

    name: Name
    price: Price
    category: Category = Category.KITCHEN
    tags: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=20)]], msgspec.Meta(max_length=5)
    ] = []


class Item(msgspec.Struct):
    """An item of the shop."""

    id: int
    name: str
    price: float
    category: Category
    tags: list[str]
    stock: int = 0


class Message(msgspec.Struct):
    """What went wrong."""

    detail: str


@dataclasses.dataclass
class Order:
    """An order of one item."""

    item_id: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    quantity: Annotated[int, msgspec.Meta(ge=1, le=100)]


class Receipt(TypedDict):
    order: int
    item_id: int
    quantity: int
    total: float


NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Message, "description": "No such item"}
}
# A model in `responses` is documented in the route's own media type, as FastAPI does: a
# plain-text route names the JSON its 404 is sent as itself.
JSON_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "description": "No such item",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Message"}}},
    }
}
items: dict[int, Item] = {
    1: Item(1, "Teapot", 25.0, Category.KITCHEN, ["tea"], stock=3),
    2: Item(2, "Rake", 12.5, Category.GARDEN, [], stock=10),
}
orders: list[Receipt] = []

catalogue = Router(tags=["items"])


def find(item_id: int) -> Item:
    item = items.get(item_id)
    if item is None:
        raise HTTPError(404, f"Item {item_id} not found")
    return item


@app.get("/", include_in_schema=False)
async def home() -> HTMLResponse:
    return HTMLResponse('<p>See the <a href="/docs">API docs</a>.</p>')


@app.get("/health")
async def health() -> dict[str, str]:
    """Whether the service is up."""
    return {"status": "ok"}


@catalogue.get("/items")
async def list_items(
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    category: Category | None = None,
    tag: Annotated[list[str], Query(description="Only items with every tag given.")] = [],  # noqa: B006
    sort: Literal["id", "name", "price"] = "id",
) -> list[Item]:
    """List items.

    Filtered by category and tags, sorted, a page at a time.
    """
    found = [
        item
        for item in items.values()
        if (category is None or item.category == category) and all(t in item.tags for t in tag)
    ]
    found.sort(key=lambda item: getattr(item, sort))
    return found[offset : offset + limit]


@catalogue.post("/items", status=201)
async def add_item(new: NewItem) -> Item:
    """Add an item."""
    number = max(items, default=0) + 1
    item = items[number] = Item(number, new.name, new.price, new.category, list(new.tags))
    return item


@catalogue.get("/items/{item_id}", responses=NOT_FOUND)
async def get_item(item_id: ItemId) -> Item:
    """One item."""
    return find(item_id)


@catalogue.put("/items/{item_id}", responses=NOT_FOUND)
async def replace_item(item_id: ItemId, new: NewItem) -> Item:
    """Replace an item, keeping its stock."""
    old = find(item_id)
    item = items[item_id] = Item(
        item_id, new.name, new.price, new.category, list(new.tags), old.stock
    )
    return item


@catalogue.delete("/items/{item_id}", status=204, responses=NOT_FOUND)
async def delete_item(item_id: ItemId) -> None:
    """Remove an item."""
    find(item_id)
    del items[item_id]


@catalogue.patch("/items/{item_id}/stock", responses=NOT_FOUND)
async def restock(
    item_id: ItemId,
    change: Annotated[int, Body(embed=True, ge=-1000, le=1000, strict=True)],
    reason: Annotated[str, Body(embed=True, max_length=100)] = "",
) -> Item:
    """Change an item's stock.

    The body is one object: `change` (how many came in, or went out when negative) and an
    optional `reason`. The stock never goes below zero.
    """
    item = find(item_id)
    item.stock = max(0, item.stock + change)
    return item


@catalogue.get("/items/{item_id}/label", responses=JSON_NOT_FOUND, response_class=PlainTextResponse)
def label(
    item_id: ItemId,
    currency: Annotated[str, Query(pattern="^[A-Z]{3}$")] = "EUR",
    accept_language: Annotated[str | None, Header(max_length=100)] = None,
) -> str:
    """A shelf label, as plain text."""
    item = find(item_id)
    greeting = "Prix" if accept_language and accept_language.startswith("fr") else "Price"
    return f"{item.name}: {greeting} {item.price:.2f} {currency}"


@app.post("/orders", status=201, tags=["orders"], responses=NOT_FOUND)
async def place_order(
    order: Order,
    x_request_id: Annotated[str | None, Header(max_length=64)] = None,
    session: Annotated[str | None, Cookie(max_length=64, pattern="^[A-Za-z0-9_-]+$")] = None,
) -> Receipt:
    """Order an item."""
    item = find(order.item_id)
    receipt: Receipt = {
        "order": len(orders) + 1,
        "item_id": item.id,
        "quantity": order.quantity,
        "total": round(item.price * order.quantity, 2),
    }
    orders.append(receipt)
    return receipt


@app.get("/orders", tags=["orders"])
async def list_orders() -> list[Receipt]:
    """Every order placed."""
    return orders


@app.get("/orders/export", tags=["orders"], deprecated=True)
async def export_orders() -> bytes:
    """Every order as CSV bytes (deprecated: read /orders)."""
    lines = ["order,item_id,quantity,total"]
    lines += [f"{r['order']},{r['item_id']},{r['quantity']},{r['total']}" for r in orders]
    return "\n".join(lines).encode()


app.include(catalogue)
