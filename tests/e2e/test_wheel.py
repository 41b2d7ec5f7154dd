"""hasten as a user installs it: the wheel, built from this checkout, installed with its
``standard`` extras into a clean venv, serves the example under ``hasten run``.

The install reads PyPI (or pip's cache) for the dependencies, as a user's does.
"""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.e2e.conftest import HOST, ROOT, free_port, local_client, stop, wait_until_ready

BUILD_TIMEOUT = 120.0
INSTALL_TIMEOUT = 300.0


@pytest.mark.timeout(BUILD_TIMEOUT + INSTALL_TIMEOUT + 60)
def test_the_wheel_installs_with_its_extras_and_serves_the_example(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    (wheel,) = dist.glob("hasten-*-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "hasten/py.typed" in names
    assert not [name for name in names if name.startswith(("tests/", "examples/", "src/"))]

    # A venv without pip of its own: this venv's pip installs into it (faster than ensurepip).
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "-q", f"{wheel}[standard]"],
        check=True,
        timeout=INSTALL_TIMEOUT,
    )
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import hasten, jinja2, uvicorn, httpx, watchfiles, swagger_ui; print(hasten.__file__)",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    assert found.stdout.startswith(str(env_dir)), found.stdout

    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        # From the checkout, for examples/: hasten itself comes from the venv (src/ is no package).
        process = subprocess.Popen(
            [str(env_dir / "bin" / "hasten"), "run", "examples.hello:app", "--port", str(port)],
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://{HOST}:{port}"
    try:
        wait_until_ready(process, base_url, log)
        with local_client(base_url) as client:
            hello = client.get("/hello")
            docs = client.get("/docs")
    finally:
        graceful = stop(process)
    assert (hello.status_code, hello.json()) == (200, {"message": "hello"})
    assert docs.status_code == 200
    assert "swagger-ui" in docs.text
    assert graceful, log.read_text(errors="replace")
    assert process.returncode == 0, log.read_text(errors="replace")
