"""hasten as a user installs it: the wheel, built from this checkout, installed with its extras
into a clean venv that serves the example under ``hasten run``; and the container recipe's
Dockerfile, its steps run in a plain venv (no container engine here to build the image).

The installs read PyPI (or pip's cache) for the dependencies, as a user's do, at the versions
the development lock pins (requirements/dev.txt, as constraints without its hashes): a release
made since cannot fail them.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.servers.e2e.conftest import HOST, ROOT, free_port, local_client, stop, wait_until_ready

pytestmark = pytest.mark.server

PIP = [sys.executable, "-m", "pip"]
BUILD_TIMEOUT = 120.0
INSTALL_TIMEOUT = 300.0
TIMEOUT = BUILD_TIMEOUT + INSTALL_TIMEOUT + 60
DOCKERFILE = ROOT / "examples/recipes/container/Dockerfile"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the wheel built from this checkout, as ``pip wheel --no-deps -w dist .``."""
    folder = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), str(ROOT)],
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    return folder


def locked_versions(lock: Path, constraints: Path) -> Path:
    """``lock``'s pins as a pip constraints file (pip takes no hashes in one)."""
    lines = [
        line.rstrip(" \\")
        for line in lock.read_text().splitlines()
        if line and not line.lstrip().startswith(("#", "--hash"))
    ]
    constraints.write_text("\n".join(lines) + "\n")
    return constraints


def clean_venv(folder: Path) -> Path:
    """A venv with nothing in it, whose ``pip`` is this venv's pip installing into it (faster
    than ensurepip) at the lock's versions; its bin folder."""
    venv.create(folder, with_pip=False)
    bin_folder = folder / "bin"
    constraints = locked_versions(ROOT / "requirements/dev.txt", folder / "constraints.txt")
    pip = bin_folder / "pip"
    pip.write_text(
        f"#!/bin/sh\nPIP_CONSTRAINT={shlex.quote(str(constraints))} "
        f'exec {shlex.join(PIP)} --python {bin_folder / "python"} "$@"\n'
    )
    pip.chmod(0o755)
    return bin_folder


def serve(
    command: list[str], cwd: Path, log: Path, env: Mapping[str, str] | None = None
) -> tuple[int, int, dict[str, object], str]:
    """Run the ``hasten run`` command until /hello answers; then the status of /hello and of
    /docs, the body of /hello and the docs page; then SIGTERM, which must stop it cleanly."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    base_url = f"http://{HOST}:{command[command.index('--port') + 1]}"
    try:
        wait_until_ready(process, base_url, log)
        with local_client(base_url) as client:
            hello = client.get("/hello")
            docs = client.get("/docs")
    finally:
        graceful = stop(process)
    assert graceful, log.read_text(errors="replace")
    assert process.returncode == 0, log.read_text(errors="replace")
    return hello.status_code, docs.status_code, hello.json(), docs.text


@pytest.mark.timeout(TIMEOUT)
def test_the_wheel_installs_with_its_extras_and_serves_the_example(
    dist: Path, tmp_path: Path
) -> None:
    (wheel,) = dist.glob("hasten-*-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "hasten/py.typed" in names
    assert not [name for name in names if name.startswith(("tests/", "examples/", "src/"))]

    bin_folder = clean_venv(tmp_path / "venv")
    subprocess.run(
        [bin_folder / "pip", "install", "-q", f"{wheel}[standard]"],
        check=True,
        timeout=INSTALL_TIMEOUT,
    )
    found = subprocess.run(
        [
            bin_folder / "python",
            "-c",
            "import hasten, jinja2, uvicorn, httpx, watchfiles, swagger_ui; print(hasten.__file__)",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    assert found.stdout.startswith(str(tmp_path / "venv")), found.stdout

    # From the checkout, for examples/: hasten itself comes from the venv (src/ is no package).
    command = [str(bin_folder / "hasten"), "run", "examples.hello:app", "--port", str(free_port())]
    hello, docs, body, page = serve(command, ROOT, tmp_path / "server.log")
    assert (hello, docs, body) == (200, 200, {"message": "hello"})
    assert "swagger-ui" in page


def instructions(dockerfile: Path) -> Iterator[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each instruction, its continued lines joined."""
    text = dockerfile.read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, arguments = line.strip().partition(" ")
            yield keyword.upper(), arguments.strip()


class PlainBuild:
    """A Dockerfile's instructions as a plain venv runs them: the image's / is ``root``, the
    build context the checkout (``dist/`` the wheel just built), ``pip`` and ``python`` the
    venv's. What cannot run here (FROM's image, USER) is checked for what it says."""

    def __init__(self, root: Path, dist: Path, bin_folder: Path) -> None:
        self.root = root
        self.dist = dist
        self.workdir = root
        self.env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}
        self.command: list[str] = []

    def inside(self, path: str) -> Path:
        """Where this build keeps the image's ``path``."""
        return self.root / path.lstrip("/") if path.startswith("/") else self.workdir / path

    def FROM(self, image: str) -> None:  # named as the instruction is, as are the others
        assert image.startswith("python:3.1"), image  # hasten needs >= 3.11

    def ENV(self, pairs: str) -> None:
        for pair in shlex.split(pairs):
            name, _, value = pair.partition("=")
            self.env[name] = value

    def WORKDIR(self, path: str) -> None:
        self.workdir = self.inside(path)
        self.workdir.mkdir(parents=True, exist_ok=True)

    def COPY(self, arguments: str) -> None:
        *sources, target = arguments.split()
        destination = self.inside(target)
        for source in sources:
            context = self.dist.parent if source.startswith("dist/") else ROOT
            for found in sorted(context.glob(source.replace("dist/", f"{self.dist.name}/", 1))):
                if found.is_dir():
                    shutil.copytree(found, destination, dirs_exist_ok=True)
                else:
                    destination.mkdir(parents=True, exist_ok=True)
                    shutil.copy(found, destination / found.name)

    def RUN(self, command: str) -> None:
        for quote in (" ", '"'):  # the image's /tmp, in root
            command = command.replace(f"{quote}/tmp/", f"{quote}{self.root}/tmp/")
        subprocess.run(
            ["sh", "-ec", command],
            cwd=self.workdir,
            env=self.env,
            check=True,
            timeout=INSTALL_TIMEOUT,
        )

    def USER(self, user: str) -> None:
        assert user == "nobody"

    def EXPOSE(self, port: str) -> None:
        assert port == "8000"

    def CMD(self, command: str) -> None:
        self.command = json.loads(command)  # the exec form: no shell between


@pytest.mark.timeout(TIMEOUT)
def test_the_dockerfile_steps_serve_the_example_in_a_plain_venv(dist: Path, tmp_path: Path) -> None:
    bin_folder = clean_venv(tmp_path / "venv")
    build = PlainBuild(tmp_path / "root", dist, bin_folder)
    seen = []
    for keyword, arguments in instructions(DOCKERFILE):
        getattr(build, keyword)(arguments)
        seen.append(keyword)
    assert seen == [
        "FROM",
        "ENV",
        "WORKDIR",
        "COPY",
        "COPY",
        "RUN",
        "COPY",
        "USER",
        "EXPOSE",
        "CMD",
    ]
    assert not (build.root / "tmp" / "wheels").exists()  # the RUN step cleaned up after itself

    # The CMD as it is, but on loopback and a free port (no traffic leaves this machine).
    command = build.command
    assert command[:2] == ["hasten", "run"]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    command[command.index("--host") + 1] = HOST
    command[command.index("--port") + 1] = str(free_port())
    command[0] = str(bin_folder / "hasten")
    hello, docs, body, _ = serve(command, build.workdir, tmp_path / "server.log", build.env)
    assert (hello, docs, body) == (200, 200, {"message": "hello"})
