"""``./scripts/serve``, the README's first command: it says where to go, on the port it is given,
and the example answers there, at ``/`` too.

It runs once ``.venv`` is set up for this pyproject.toml (as ``scripts/test`` leaves it in CI);
elsewhere it would install into the developer's venv, so it is skipped there.
"""

from __future__ import annotations

import hashlib
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.servers.e2e.conftest import HOST, ROOT, free_port, local_client, wait_until_ready

pytestmark = pytest.mark.server


# What scripts/install installs each set from: its stamp in the venv holds their digest.
LOCKS = {
    "dev": ("pyproject.toml", "requirements/uv.txt", "requirements/dev.txt"),
    "serve": ("pyproject.toml", "requirements/serve.txt"),
}


def venv_is_set_up() -> bool:
    for what, locks in LOCKS.items():
        digest = hashlib.sha256(b"".join((ROOT / lock).read_bytes() for lock in locks))
        stamp = ROOT / ".venv" / f".installed-{what}"
        if stamp.is_file() and stamp.read_text().strip() == digest.hexdigest():
            return True
    return False


@pytest.mark.skipif(
    not venv_is_set_up(), reason="scripts/install has not set up .venv for this pyproject.toml"
)
def test_serve_prints_the_urls_to_open_and_the_example_answers_there(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(ROOT / "scripts" / "serve"), "--port", str(port)],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the script execs hasten run: its session is the server's
        )
    base_url = f"http://{HOST}:{port}"
    try:
        wait_until_ready(process, base_url, log)
        with local_client(base_url) as client:
            front = client.get("/")
            docs = client.get("/docs")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    printed = log.read_text(errors="replace")

    assert printed.startswith(f"Serving examples/hello.py at {base_url} (Ctrl-C stops it;"), printed
    urls = re.findall(r"^  (http://\S+)", printed, re.M)
    assert urls == [
        f"{base_url}/",
        f"{base_url}/hello",
        f"{base_url}/items/3?q=x",
        f"{base_url}/docs",
    ]
    assert front.status_code == 200
    assert '<a href="/hello">/hello</a>' in front.text
    assert docs.status_code == 200
    assert process.returncode == 0, printed
