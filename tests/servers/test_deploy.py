"""docs/deploy.md, checked: two hasten instances behind nginx on 127.0.0.1, restarted one at
a time under load, fail no request; and an app with ``ready_url``, stopped under load, says
503 on its readiness before it stops listening (on uvloop, the loop the dev dependencies
install, as FastAPI's standard extras do)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests.servers.e2e.app:app"
READY_TARGET = "tests.servers.e2e.observed_app:app"  # ready_url="/readyz", and an async /sleep
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
START_TIMEOUT = 15.0
CLIENTS = 4

# The configuration docs/deploy.md recommends, on loopback ports.
NGINX_CONF = """
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    upstream hasten {{
        server 127.0.0.1:{first} max_fails=0;
        server 127.0.0.1:{second} max_fails=0;
        keepalive 16;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://hasten;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout http_503;
            proxy_next_upstream_tries 3;
            proxy_connect_timeout 1s;
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers(port: int) -> bool:
    try:
        with httpx.Client(trust_env=False, timeout=1.0) as http:
            return http.get(f"http://127.0.0.1:{port}/hello").status_code == 200
    except httpx.TransportError:
        return False


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Instance:
    """One ``hasten run`` on a fixed port, which can be restarted."""

    def __init__(self, port: int, log: Path, target: str = TARGET) -> None:
        self.port = port
        self.log = log
        self.target = target
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = [sys.executable, "-m", "hasten", "run", self.target, "--port", str(self.port)]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                argv, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_until(lambda: answers(self.port), f"hasten on port {self.port}")

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(15)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@contextlib.contextmanager
def nginx(prefix: Path, port: int, first: int, second: int) -> Iterator[None]:
    conf = prefix / "nginx.conf"
    conf.write_text(NGINX_CONF.format(prefix=prefix, port=port, first=first, second=second))
    process = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: answers(port), "nginx")
        yield
    finally:
        process.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def under_load(port: int, seconds: str) -> Iterator[list[int]]:
    """CLIENTS clients asking nginx on ``port`` for /sleep (``seconds`` each) until the block
    ends: the statuses they got."""
    statuses: list[int] = []
    stop = threading.Event()

    def client() -> None:
        with httpx.Client(trust_env=False, timeout=10.0) as http:
            while not stop.is_set():
                # A request that is in flight while its instance stops: it must finish.
                response = http.get(f"http://127.0.0.1:{port}/sleep", params={"seconds": seconds})
                statuses.append(response.status_code)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    try:
        yield statuses
    finally:
        stop.set()
        for thread in threads:
            thread.join(15)


@pytest.mark.server
@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (.ci/run installs it)")
def test_rolling_restart_behind_nginx_fails_no_request(tmp_path: Path) -> None:
    instances = [Instance(free_port(), tmp_path / f"hasten-{n}.log") for n in (1, 2)]
    port = free_port()
    try:
        for instance in instances:
            instance.start()
        with (
            nginx(tmp_path, port, instances[0].port, instances[1].port),
            under_load(port, "0.05") as statuses,
        ):
            time.sleep(0.5)
            for instance in instances:  # one at a time: stop, start again
                assert instance.stop() in (0, -signal.SIGTERM)
                served_while_down = len(statuses)
                instance.start()
                time.sleep(0.5)
                assert len(statuses) > served_while_down
    finally:
        for instance in instances:
            instance.kill()
    assert len(statuses) > 50
    assert set(statuses) == {200}, {status: statuses.count(status) for status in set(statuses)}


def readiness(port: int) -> int | str:
    """The instance's own /readyz: its status, or "refused" once it stopped listening."""
    try:
        with httpx.Client(trust_env=False, timeout=2.0) as http:
            return http.get(f"http://127.0.0.1:{port}/readyz").status_code
    except httpx.TransportError:
        return "refused"


@pytest.mark.server
@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (.ci/run installs it)")
def test_sigterm_under_load_turns_readiness_503_before_the_server_stops_listening(
    tmp_path: Path,
) -> None:
    instances = [Instance(free_port(), tmp_path / f"hasten-{n}.log", READY_TARGET) for n in (1, 2)]
    port = free_port()
    stopping = instances[0]
    try:
        for instance in instances:
            instance.start()
        assert "cannot be taken ahead" not in stopping.log.read_text()
        with (
            nginx(tmp_path, port, instances[0].port, instances[1].port),
            under_load(port, "0.02") as statuses,
            httpx.Client(trust_env=False, timeout=10.0) as direct,
        ):
            time.sleep(0.3)
            # One request in flight on the instance, which the drain waits for.
            slow = threading.Thread(
                target=lambda: statuses.append(
                    direct.get(
                        f"http://127.0.0.1:{stopping.port}/sleep", params={"seconds": "1"}
                    ).status_code
                )
            )
            slow.start()
            time.sleep(0.2)
            assert stopping.process is not None
            stopping.process.send_signal(signal.SIGTERM)
            seen: list[int | str] = []
            while stopping.process.poll() is None and len(seen) < 500:
                seen.append(readiness(stopping.port))
                time.sleep(0.02)
            slow.join(10)
            assert stopping.process.wait(15) in (0, -signal.SIGTERM)
            time.sleep(0.3)  # the load goes on, to the other instance
    finally:
        for instance in instances:
            instance.kill()
    # 503 from the SIGTERM on, while the request in flight finishes; refused only after.
    assert 503 in seen, seen
    assert 200 not in seen[seen.index(503) :], seen
    assert "refused" not in seen[: seen.index(503)], seen
    assert len(statuses) > 50
    assert set(statuses) == {200}, {status: statuses.count(status) for status in set(statuses)}
