"""OpenAPI on real servers: the document and docs page on each, Swagger UI rendered by
headless Chromium with the network cut off from all but the app, and Schemathesis finding
no answer of ``examples.api`` or ``examples.conduit`` that contradicts its document."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from openapi_spec_validator import validate

from hasten.openapi.docs import swagger_ui_files
from tests.servers.e2e.conftest import ROOT, RunningServer, local_client, run_server

pytestmark = pytest.mark.server


@dataclass(frozen=True)
class Example:
    """An example app: how to serve it, and what its document holds."""

    target: str
    server: str
    ready: str  # a path that answers 200 once it serves
    title: str
    operations: int
    signs_in: bool = False  # Schemathesis sends a signed-in user's token
    # What Schemathesis may warn about, by the warning's title.
    warnings: tuple[str, ...] = ()


EXAMPLES = [
    Example("examples.api:app", "granian-rsgi", "/health", "Inventory", 11),
    # As its docstring serves it: ``hasten run examples.conduit:app``.
    Example(
        "examples.conduit:app",
        "hasten-run",
        "/articles",
        "Conduit",
        10,
        signs_in=True,
        # Random credentials at POST /users/login get 400, which it counts as rejected data.
        warnings=("Schema validation mismatch",),
    ),
]
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # The network, cut: no name resolves but 127.0.0.1's, and anything else goes to a proxy
    # that is not there (loopback never goes through a proxy).
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)
RENDER_BUDGET_MS = "20000"  # virtual time Chromium gives the page to load and render
SCHEMATHESIS_EXAMPLES = "30"  # per operation and phase: about 800 requests, ~10 s


def test_the_document_and_docs_page_are_served(client: httpx.Client) -> None:
    document = client.get("/openapi.json")
    assert document.status_code == 200
    assert document.headers["content-type"] == "application/json"
    validate(document.json())
    assert "/hello" in document.json()["paths"]
    page = client.get("/docs")
    assert page.status_code == 200
    assert "swagger-ui-bundle.js" in page.text
    found = swagger_ui_files()
    assert found is not None
    bundle = client.get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.status_code == 200
    assert bundle.content == (found[0] / "swagger-ui-bundle.js").read_bytes()


@pytest.fixture(scope="module", params=EXAMPLES, ids=lambda example: example.target)
def example(request: pytest.FixtureRequest) -> Example:
    found: Example = request.param
    return found


@pytest.fixture(scope="module")
def api_server(
    example: Example, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    """The example app on Granian (RSGI), the default server."""
    log = tmp_path_factory.mktemp("api") / "server.log"
    with run_server(example.server, log, target=example.target, ready=example.ready) as running:
        yield running


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def dump_dom(url: str, profile: Path) -> str:
    """The page's DOM once Chromium has loaded and run it, offline."""
    command = [
        chromium(),
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        f"--virtual-time-budget={RENDER_BUDGET_MS}",
        "--dump-dom",
        url,
    ]
    done = subprocess.run(command, capture_output=True, timeout=90, check=True)
    return done.stdout.decode()


@pytest.mark.timeout(180)
def test_chromium_renders_every_operation_offline(
    example: Example, api_server: RunningServer, tmp_path: Path
) -> None:
    with local_client(api_server.base_url) as http:
        document = http.get("/openapi.json").json()
    expected = {
        (operation["tags"][0] if "tags" in operation else "default", operation["operationId"])
        for item in document["paths"].values()
        for operation in item.values()
    }
    assert len(expected) == example.operations
    dom = dump_dom(f"{api_server.base_url}/docs", tmp_path / "profile")
    # Swagger UI gives each operation it renders an element id of its tag and operationId.
    rendered = {
        (tag, operation_id)
        for tag, operation_id in expected
        if f'id="operations-{tag}-{operation_id}"' in dom
    }
    assert rendered == expected, dom[:2000]
    for path in document["paths"]:
        assert f'data-path="{path}"' in dom
    assert example.title in dom


@pytest.mark.timeout(60)
def test_chromium_really_is_offline(tmp_path: Path) -> None:
    # The same flags keep any other host out: a page from elsewhere never loads.
    dom = dump_dom("http://example.com/", tmp_path / "profile")
    assert "Example Domain" not in dom


def sign_in(base_url: str) -> str:
    """A new user's bearer token, from ``examples.conduit``'s sign-up and login."""
    user = {"username": "fuzzer", "email": "fuzzer@example.com", "password": "correct horse"}
    with local_client(base_url) as http:
        assert http.post("/users", json={"user": user}).status_code == 201
        login = http.post("/users/login", data=user)
    assert login.status_code == 200
    token: str = login.json()["access_token"]
    return token


@pytest.mark.timeout(300)
def test_schemathesis_finds_no_failure(
    example: Example, api_server: RunningServer, tmp_path: Path
) -> None:
    command = [
        str(Path(sys.executable).with_name("st")),
        "run",
        f"{api_server.base_url}/openapi.json",
        # every check; what it may not send: tests/servers/e2e/schemathesis_hooks.py
        "--checks=all",
        f"--max-examples={SCHEMATHESIS_EXAMPLES}",
        "--seed=1",
        "--workers=1",  # its threaded workers crash on their own now and then
        "--generation-database=none",
        "--request-timeout=10",
    ]
    if example.signs_in:
        command.append(f"--header=Authorization: Bearer {sign_in(api_server.base_url)}")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SCHEMATHESIS_HOOKS": "tests.servers.e2e.schemathesis_hooks",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    warned = {line.split(":")[0].strip(" ⚠️") for line in done.stdout.splitlines() if "⚠️" in line}
    assert warned == set(example.warnings), done.stdout[-6000:]
    if not example.warnings:
        assert "No issues found" in done.stdout
    assert f"{example.operations} selected / {example.operations} total" in done.stdout
