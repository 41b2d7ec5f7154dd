"""The layout: the public surface on top, the engine below in layers, imports one way.

pyproject.toml's import-linter contract states the layers (``lint-imports`` checks it in
scripts/check); these tests hold what a contract cannot say: how large an import cycle may
grow, how many imports may run against the layers even where the contract is told to ignore
them, and that every public import path a user or ``hasten port`` uses still works. Type-only
imports count everywhere: a reader follows them too.
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

import hasten
from hasten._cli.port import MODULES

ROOT = Path(__file__).resolve().parents[2]
MAX_CYCLE = 7  # modules in the largest import cycle: about a tenth of them
MAX_AGAINST_LAYERS = 15

# What users import by its path: the modules `hasten port` maps FastAPI's and Starlette's to,
# and the ones hasten's own guide names.
PUBLIC = sorted(
    {*MODULES.values()}
    | {
        "hasten.app",
        "hasten.bench",
        "hasten.cli",
        "hasten.middleware.base",
        "hasten.middleware.headers",
        "hasten.openapi.docs",
        "hasten.openapi.models",
        "hasten.security.oauth2",
        "hasten.status",
        "hasten.templating",
        "hasten.testing",
        "hasten.types",
    }
)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("hasten", cache_dir=None)


def _layers() -> list[list[str]]:
    """The contract's layers, top first: each a list of ``hasten.<name>`` siblings."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [contract] = config["tool"]["importlinter"]["contracts"]
    layers = []
    for layer in contract["layers"]:
        names = layer.replace(":", "|").split("|")
        layers.append([f"hasten.{name.strip()}" for name in names])
    return layers


def _layer_of(module: str, layers: list[list[str]]) -> int | None:
    for index, siblings in enumerate(layers):
        for sibling in siblings:
            if module == sibling or module.startswith(sibling + "."):
                return index
    return None  # the package itself: it may import anything


def _imports(graph: grimp.ImportGraph) -> Iterator[tuple[str, str]]:
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            yield importer, imported


def _against_layers(graph: grimp.ImportGraph) -> list[str]:
    """Each import from a lower layer up to a higher one."""
    layers = _layers()
    against = []
    for importer, imported in _imports(graph):
        lower, higher = _layer_of(importer, layers), _layer_of(imported, layers)
        if lower is not None and higher is not None and higher < lower:
            against.append(f"{importer} -> {imported}")
    return against


def _largest_cycle(graph: grimp.ImportGraph) -> set[str]:
    """The largest strongly connected set of modules (Tarjan's algorithm, iteratively)."""
    edges = {
        module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    largest: set[str] = set()
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                largest = max(largest, component, key=len)
    return largest


def test_the_largest_import_cycle_holds_at_most_seven_modules(graph: grimp.ImportGraph) -> None:
    cycle = _largest_cycle(graph)
    assert len(cycle) <= MAX_CYCLE, sorted(cycle)


def test_at_most_fifteen_imports_run_against_the_layers(graph: grimp.ImportGraph) -> None:
    against = _against_layers(graph)
    assert len(against) <= MAX_AGAINST_LAYERS, against


def test_every_module_is_in_a_layer(graph: grimp.ImportGraph) -> None:
    layers = _layers()
    outside = [m for m in graph.modules if m != "hasten" and _layer_of(m, layers) is None]
    assert outside == []


def test_the_engine_below_the_public_surface_is_private() -> None:
    layers = _layers()
    engine = [name for siblings in layers[layers.index(["hasten._serve"]) :] for name in siblings]
    assert [name for name in engine if not name.removeprefix("hasten.").startswith("_")] == []


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_import_path_imports_with_each_name_it_lists(module: str) -> None:
    imported = importlib.import_module(module)
    names = getattr(imported, "__all__", [])
    missing = [name for name in names if not hasattr(imported, name)]
    assert missing == []


def test_the_package_exports_every_name_it_lists() -> None:
    assert [name for name in hasten.__all__ if not hasattr(hasten, name)] == []


def _imports_from_elsewhere(path: Path) -> Iterator[str]:
    """Each name a module of hasten imports from a module of hasten that is not the one that
    defines it (a class or function found by its name in its ``__module__``; an alias, such as
    FastAPI's ``HTTPConnection`` for ``Connection``, is defined where it is assigned)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("hasten"):
            continue
        assert node.module is not None
        source = importlib.import_module(node.module)
        for alias in node.names:
            value = getattr(source, alias.name, None)
            home = getattr(value, "__module__", None) if callable(value) else None
            if (
                isinstance(home, str)
                and home.startswith("hasten.")
                and home != node.module
                and getattr(importlib.import_module(home), alias.name, None) is value
            ):
                yield f"{alias.name} from {node.module}, defined in {home}"


def test_every_name_is_imported_from_the_module_that_defines_it() -> None:
    """One hop from a public name to its code: no module re-exports another's names to a
    third (the modules served as fastapi's and starlette's excepted: they are those names)."""
    source = ROOT / "src" / "hasten"
    hops = {
        str(path.relative_to(source)): found
        for path in sorted(source.rglob("*.py"))
        if "_served_as" not in path.parts and (found := list(_imports_from_elsewhere(path)))
    }
    assert hops == {}


def test_the_readme_layout_names_every_package_and_module_of_the_tree() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Layout", 1)[1].split("```")[1]
    named = set(re.findall(r"(?<![\w/])[\w.]*\w(?:\.py|/)(?!\w)", block))
    tree = {
        path.name + ("/" if path.is_dir() else "")
        for path in (ROOT / "src" / "hasten").iterdir()
        if path.name not in {"__pycache__", "py.typed"}
    }
    assert sorted(tree - named) == []
    # Named beside the tree: a package inside one, and the folders around src/.
    around = {"protocols/", "src/", "tests/", "compat/", "benchmarks/", "docs/", "examples/"}
    around.add("requirements/")
    assert sorted(named - tree - around - {"test_layout.py"}) == []


if __name__ == "__main__":  # python tests/project/test_layout.py: the numbers these tests bound
    built = grimp.build_graph("hasten", cache_dir=None)
    cycle, against = _largest_cycle(built), _against_layers(built)
    print(f"{len(built.modules)} modules; the largest import cycle: {len(cycle)} {sorted(cycle)}")
    print(f"imports against the layers: {len(against)} {against}")
