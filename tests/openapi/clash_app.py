"""Models that share names: two modules' ``Item``, a factory's classes, generics over them, and
a user's own ``ValidationError``. Their OpenAPI component names must all differ."""

from __future__ import annotations

import dataclasses
from typing import Generic, TypeVar

import msgspec

from hasten import App

T = TypeVar("T")

# Two ``Item`` classes, as two modules of an app would define them.
ShopItem = msgspec.defstruct("Item", [("sku", str)], module="shop.models")
StockItem = msgspec.defstruct("Item", [("count", int)], module="stock.models")
# A third whose module differs only by a dot: ``module__Name`` is not enough, it is numbered.
OtherStockItem = dataclasses.make_dataclass("Item", [("count", int)])
OtherStockItem.__module__ = "stock_models"


def make_model(field: str) -> type[msgspec.Struct]:
    # Each call makes a class of the same module and qualified name.
    class Model(msgspec.Struct):
        value: int

    return msgspec.defstruct("Model", [(field, int)], module=__name__, bases=(Model,))


FirstModel = make_model("first")
SecondModel = make_model("second")


class Page(msgspec.Struct, Generic[T]):
    items: list[T]


class ValidationError(msgspec.Struct):
    """The app's own, not hasten's."""

    reason: str


app = App()


@app.post("/shop")
async def shop(item: ShopItem) -> ShopItem:  # type: ignore[valid-type]
    return item


@app.post("/stock")
async def stock(item: StockItem) -> StockItem:  # type: ignore[valid-type]
    return item


@app.post("/other-stock")
async def other_stock(item: OtherStockItem) -> OtherStockItem:  # type: ignore[valid-type]
    return item


@app.post("/first")
async def first(model: FirstModel) -> SecondModel:  # type: ignore[valid-type]
    return model


@app.get("/shop-pages")
async def shop_pages() -> Page[ShopItem]:  # type: ignore[valid-type]
    return Page([])


@app.get("/stock-pages")
async def stock_pages() -> Page[StockItem]:  # type: ignore[valid-type]
    return Page([])


@app.get("/invalid")
async def invalid() -> ValidationError:
    return ValidationError("no")
