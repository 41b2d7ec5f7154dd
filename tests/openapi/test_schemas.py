"""Component names: one per class, never shared, the same from run to run."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from openapi_spec_validator import validate

from hasten import App, Form
from hasten.openapi import get_openapi
from hasten.openapi.schemas import Schemas
from tests.conftest import ClientFactory
from tests.openapi import clash_app

ROOT = Path(__file__).resolve().parents[2]


def ref(document: dict[str, Any], path: str, method: str = "get") -> str:
    schema = document["paths"][path][method]["responses"]["200"]["content"]["application/json"]
    name: str = schema["schema"]["$ref"]
    return name.removeprefix("#/components/schemas/")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return get_openapi(title="t", version="1", routes=clash_app.app.routes)


def test_two_models_of_one_name_in_two_modules_get_module_names(document: dict[str, Any]) -> None:
    assert ref(document, "/shop", "post") == "shop_models__Item"
    assert ref(document, "/stock", "post") == "stock_models__Item"
    schemas = document["components"]["schemas"]
    assert schemas["shop_models__Item"]["properties"] == {"sku": {"type": "string"}}
    assert schemas["stock_models__Item"]["properties"] == {"count": {"type": "integer"}}


def test_module_names_that_still_clash_are_numbered(document: dict[str, Any]) -> None:
    assert ref(document, "/other-stock", "post") == "stock_models__Item_2"
    # Two classes one factory made: same module, same qualified name.
    assert ref(document, "/first", "post") == "tests_openapi_clash_app__Model_2"
    body = document["paths"]["/first"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/tests_openapi_clash_app__Model"}
    # Generics over same-named classes (msgspec's own naming fails on these).
    assert ref(document, "/shop-pages") == "tests_openapi_clash_app__Page_Item_"
    assert ref(document, "/stock-pages") == "tests_openapi_clash_app__Page_Item__2"
    page = document["components"]["schemas"]["tests_openapi_clash_app__Page_Item__2"]
    assert page["properties"]["items"]["items"] == {
        "$ref": "#/components/schemas/stock_models__Item"
    }


def test_a_class_gives_way_to_the_422s_own_components(document: dict[str, Any]) -> None:
    assert ref(document, "/invalid") == "tests_openapi_clash_app__ValidationError"
    schemas = document["components"]["schemas"]
    assert schemas["HTTPValidationError"]["properties"]["detail"]["items"] == {
        "$ref": "#/components/schemas/ValidationError"
    }
    assert schemas["ValidationError"]["title"] == "ValidationError"


def test_every_reference_resolves_and_the_document_is_valid(document: dict[str, Any]) -> None:
    validate(document)
    names = set(document["components"]["schemas"])
    found = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    found.add(value.removeprefix("#/components/schemas/"))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(document)
    assert found == names


def test_names_are_stable_across_runs(tmp_path: Path) -> None:
    outputs = []
    for seed in ("1", "2"):
        output = tmp_path / f"{seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [
                *(sys.executable, "-m", "hasten", "openapi", "tests.openapi.clash_app:app"),
                *("--output", str(output)),
            ],
            cwd=ROOT,
            env=env,
            check=True,
        )
        outputs.append(output.read_bytes())
    assert outputs[0] == outputs[1]
    assert b"stock_models__Item_2" in outputs[0]


def test_unique_short_names_stay_short() -> None:
    class Lonely(msgspec.Struct):
        value: int

    schemas = Schemas()
    placeholder = schemas.schema(list[Lonely])
    placeholder["default"] = []
    components = schemas.resolve()
    assert placeholder == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Lonely"},
        "default": [],
    }
    assert list(components) == ["Lonely"]


def test_two_same_named_classes_inside_one_type_are_refused() -> None:
    both = msgspec.defstruct("Both", [("a", clash_app.FirstModel), ("b", clash_app.SecondModel)])
    schemas = Schemas()
    schemas.schema(both)
    schemas.schema(clash_app.ShopItem)
    schemas.schema(clash_app.StockItem)
    with pytest.raises(
        TypeError, match=r"two classes named tests\.openapi\.clash_app\.Model inside one type"
    ):
        schemas.resolve()


class ModelName(enum.Enum):
    alexnet = "alexnet"
    resnet = "resnet"
    lenet = "lenet"


def test_an_enum_keeps_its_order_and_a_bare_list_its_any_items() -> None:
    schemas = Schemas()
    model, bare = schemas.schema(ModelName), schemas.schema(list)
    components = schemas.resolve()
    assert model == {"$ref": "#/components/schemas/ModelName"}
    assert components["ModelName"] == {
        "enum": ["alexnet", "resnet", "lenet"],
        "title": "ModelName",
        "type": "string",
    }
    assert bare == {"type": "array", "items": {}}


@dataclasses.dataclass
class Event:
    at: datetime.datetime
    starts: datetime.time | None
    moved: list[datetime.datetime]
    by_day: dict[str, datetime.datetime]
    day: datetime.date


def test_a_datetime_and_a_time_say_their_formats_as_fastapi_does() -> None:
    schemas = Schemas()
    when, maybe, event = (
        schemas.schema(datetime.datetime),
        schemas.schema(datetime.time | None),
        schemas.schema(Event),
    )
    components = schemas.resolve()
    stamp = {"type": "string", "format": "date-time"}
    assert when == stamp
    assert maybe == {"anyOf": [{"type": "string", "format": "time"}, {"type": "null"}]}
    assert event == {"$ref": "#/components/schemas/Event"}
    # A dataclass's fields are titled, as pydantic titles them in FastAPI's document.
    assert components["Event"]["properties"] == {
        "at": {"title": "At", **stamp},
        "starts": {
            "title": "Starts",
            "anyOf": [{"type": "string", "format": "time"}, {"type": "null"}],
        },
        "moved": {"title": "Moved", "type": "array", "items": stamp},
        "by_day": {"title": "By Day", "type": "object", "additionalProperties": stamp},
        "day": {"title": "Day", "type": "string", "format": "date"},
    }


def test_a_fixed_tuple_is_documented_by_its_length_as_fastapi_does(serve: ClientFactory) -> None:
    app = App()

    @app.post("/pair")
    def pair(values: tuple[int, int] = Form()) -> tuple[int, int]:
        return values

    client = serve(app)
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    # msgspec adds "items": false; pydantic, and so FastAPI, lets the length say it.
    assert schemas["Body_pair_pair_post"]["properties"]["values"] == {
        "title": "Values",
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "integer"}],
        "minItems": 2,
        "maxItems": 2,
    }
    response = client.post("/pair", data={"values": ["1", "2"]})
    assert (response.status_code, response.json()) == (200, [1, 2])
