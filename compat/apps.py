"""Real FastAPI applications, ported by their imports, run by their own test suites.

Each app in ``APPS`` is a public repository at a pinned commit. This runner exports it, runs its
tests as they are on FastAPI, then with every ``fastapi`` and ``starlette`` import rewritten by
``hasten port``'s one rule, and nothing else touched, on hasten (where FastAPI and Starlette
cannot be imported at all), each side in a venv of its own and, where the app needs one, on a
PostgreSQL of its own started for the run. It prints which tests pass on each side.

    python compat/apps.py NAME [--git PATH] [--failures]

``--git`` takes a clone of the app's repository (any clone holding the pinned commit); without
it the repository is cloned from its URL into ``.cache/compat/apps/``. No app's code is kept in
this repository: the results are recorded by hand in ``compat/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from harness import Outcome, ask, parse_report  # noqa: E402

from hasten._cli.port import port_source  # noqa: E402

CACHE = ROOT / ".cache" / "compat" / "apps"
# Imported first in every process of the hasten side (a sitecustomize on its path).
BLOCKER = """# Written by compat/apps.py: FastAPI and Starlette cannot be imported on this side.
import sys


class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "starlette"):
            raise ImportError(f"{name} is blocked: this is the hasten run")
        return None


sys.meta_path.insert(0, _Blocked())
"""


@dataclass(frozen=True)
class AppSpec:
    """One public app: where it is, what it needs, how its tests run."""

    url: str
    commit: str
    root: str  # the folder of the repository that holds the app and its tests
    python: str  # the Python version it needs ("3.13")
    # What it imports beside the framework; on FastAPI's side FastAPI is added.
    requirements: tuple[str, ...]
    fastapi: str = "fastapi[standard]==0.165.0"
    # Its environment; {host}, {port} and {database} are the side's PostgreSQL database.
    env: dict[str, str] = field(default_factory=dict)
    # Run in the app's folder before its tests (migrations, initial data).
    prepare: tuple[str, ...] = ()
    tests: tuple[str, ...] = ("tests",)
    postgres: bool = False


APPS: dict[str, AppSpec] = {
    # SQLModel on PostgreSQL, alembic, JWT auth, pydantic-settings, CORS; the last commit before
    # the template moved to Python 3.14.
    "full-stack-fastapi-template": AppSpec(
        url="https://github.com/fastapi/full-stack-fastapi-template",
        commit="a727535488542228dc19b13f217a104ad317c122",
        root="backend",
        python="3.11",
        requirements=(
            "python-multipart>=0.0.27,<1",
            "email-validator>=2.1.0.post1,<3",
            "tenacity>=8.2.3,<10",
            "pydantic>2.0",
            "emails>=0.6,<1",
            "jinja2>=3.1.4,<4",
            "alembic>=1.12.1,<2",
            "httpx>=0.25.1,<1",
            "psycopg[binary]>=3.1.13,<4",
            "sqlmodel>=0.0.21,<1",
            "pydantic-settings>=2.2.1,<3",
            "sentry-sdk>=2,<3",
            "pyjwt>=2.13,<3",
            "pwdlib[argon2,bcrypt]>=0.3",
            "pytest>=7.4.3,<10",
        ),
        env={
            "ENVIRONMENT": "local",
            "PROJECT_NAME": "Full Stack FastAPI Project",
            "SECRET_KEY": "a-secret-for-the-compat-run",
            "FIRST_SUPERUSER": "admin@example.com",
            "FIRST_SUPERUSER_PASSWORD": "a-password-for-the-compat-run",
            "EMAILS_FROM_EMAIL": "info@example.com",
            "POSTGRES_SERVER": "{host}",
            "POSTGRES_PORT": "{port}",
            "POSTGRES_USER": "postgres",
            "POSTGRES_DB": "{database}",
        },
        prepare=("alembic upgrade head", "python app/initial_data.py"),
        postgres=True,
    ),
    # Users, JWT and cookie auth, OAuth2 routers and dependencies made at run time (makefun):
    # a library whose whole test suite is FastAPI apps.
    "fastapi-users": AppSpec(
        url="https://github.com/fastapi-users/fastapi-users",
        commit="9ef8cd82619856772ac06a178b114eb47c79586c",
        root=".",
        python="3.11",
        fastapi="fastapi==0.165.0",
        requirements=(
            "pydantic>=2",
            "pwdlib[argon2,bcrypt]==0.3.0",
            "email-validator>=1.1.0,<2.4",
            "pyjwt[crypto]>=2.12,<3",
            "python-multipart>=0.0.22,<0.1",
            "makefun>=1.11.2,<2",
            "httpx-oauth>=0.13",
            "redis>=4.3.3,<8",
            "httpx",
            "asgi-lifespan",
            "pytest",
            "pytest-asyncio",
            "pytest-mock",
        ),
    ),
    # CRUD routers made at run time from SQLAlchemy and SQLModel models (endpoints whose
    # signatures are rewritten, filter dependencies built from __signature__, cursor and page
    # pagination), async sessions. Its whole suite, on SQLite (aiosqlite in memory), which is
    # what its tests use unless marked for a dialect: the few marked postgresql or mysql start a
    # Docker container (testcontainers) and skip without Docker, on both sides alike.
    # (uriyyo/fastapi-pagination was tried first and set aside: its add_pagination() rewrites
    # FastAPI's private dependency graph at run time, fastapi.dependencies.utils' private
    # functions and route.dependant, which hasten does not have by design.)
    "fastcrud": AppSpec(
        url="https://github.com/igorbenav/fastcrud",
        commit="9724fb9d7c89eb582d24803e194675535843971e",
        root=".",
        python="3.11",
        fastapi="fastapi==0.165.0",
        requirements=(
            "SQLAlchemy>=2.0.0,<3",
            "pydantic>=2.0.0,<3",
            "SQLAlchemy-Utils>=0.41.1,<0.42",
            "sqlmodel>=0.0.14,<0.0.15",
            "aiosqlite>=0.19.0,<0.20",
            "greenlet>=3.0.3,<4",
            "httpx",
            "testcontainers>=4.7.1,<5",
            "pytest>=7.4.4,<8",
            "pytest-asyncio>=0.23.3,<0.24",
        ),
    ),
}


def log(message: str) -> None:
    print(f"apps: {message}", file=sys.stderr, flush=True)


def export(spec: AppSpec, name: str, git: Path | None) -> Path:
    """The app's folder at its pinned commit, exported once."""
    source = CACHE / name / "source"
    if (source / spec.root).is_dir():
        return source
    if git is None:
        git = CACHE / name / "repo.git"
        if not git.exists():
            log(f"cloning {spec.url}")
            subprocess.run(["git", "clone", "--bare", spec.url, str(git)], check=True)
    archive = subprocess.run(
        ["git", "--git-dir", str(git), "archive", "--format=tar", spec.commit, spec.root],
        check=True,
        capture_output=True,
    ).stdout
    source.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    return source


def make_tree(spec: AppSpec, source: Path, side: str) -> Path:
    """A fresh copy of the app; on hasten's side, every .py ported and a blocker on its path."""
    tree = CACHE / source.parent.name / side
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source / spec.root, tree)
    if side == "hasten":
        for path in tree.rglob("*.py"):
            text = path.read_text()
            ported = port_source(text)
            if ported != text:
                path.write_text(ported)
        blocker = tree.parent / "blocker"
        blocker.mkdir(exist_ok=True)
        (blocker / "sitecustomize.py").write_text(BLOCKER)
    return tree


def port_dependencies(python: Path, spec: AppSpec) -> list[str]:
    """On hasten's side, the app's own dependencies that integrate with FastAPI (an OAuth client's
    FastAPI helpers, say) ported by the same rule, as `hasten port` would port them if they were
    the app's code; hasten's own files are left as they are."""
    site = ask(python, "import sysconfig; print(sysconfig.get_path('purelib'))")
    ported = []
    for requirement in spec.requirements:
        package = re.split(r"[\[<>=~! ]", requirement, maxsplit=1)[0].replace("-", "_").lower()
        folder = Path(site) / package
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            text = path.read_text()
            changed = port_source(text)
            if changed != text:
                path.write_text(changed)
                ported.append(str(path.relative_to(site)))
    return ported


def venv(spec: AppSpec, name: str, side: str) -> Path:
    """The side's venv: the app's requirements, and FastAPI or hasten from this checkout."""
    where = CACHE / name / f"venv-{side}"
    python = where / "bin" / "python"
    framework = [spec.fastapi] if side == "fastapi" else ["-e", f"{ROOT}[standard]"]
    wanted = "\n".join([*framework, *spec.requirements])
    marker = where / "installed.txt"
    if not python.exists():
        subprocess.run([find_python(spec.python), "-m", "venv", str(where)], check=True)
    if not marker.exists() or marker.read_text() != wanted:
        log(f"installing {name}'s requirements into venv-{side}")
        pip = [str(python), "-m", "pip", "install", "--quiet", *framework, *spec.requirements]
        subprocess.run(pip, check=True)
        marker.write_text(wanted)
    return python


def find_python(version: str) -> str:
    """An interpreter of that version: on PATH, or one that pyenv installed."""
    found = [
        shutil.which(f"python{version}"),
        *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/python"))),
    ]
    for candidate in filter(None, found):
        if subprocess.run([candidate, "-V"], capture_output=True, check=False).returncode == 0:
            return candidate
    raise SystemExit(f"apps: no Python {version} here (pyenv install {version})")


@contextlib.contextmanager
def postgres() -> Iterator[int]:
    """A PostgreSQL server of the run's own on 127.0.0.1; yields its port."""
    (initdb,) = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))[-1:]
    binaries = Path(initdb).parent
    with tempfile.TemporaryDirectory() as folder:
        if _postgres_user():
            shutil.chown(folder, _postgres_user())
        data = Path(folder) / "data"
        subprocess.run(
            [initdb, "-D", str(data), "-U", "postgres", "--auth=trust"],
            check=True,
            capture_output=True,
            user=_postgres_user(),
        )
        port = _free_port()
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        pg_ctl = [str(binaries / "pg_ctl"), "-D", str(data), "-w", "-o", options]
        # Its log goes to a file: the server outlives pg_ctl and would hold a pipe open.
        log_file = ["-l", str(Path(folder) / "server.log")]
        subprocess.run(
            [*pg_ctl, *log_file, "start"],
            check=True,
            stdout=subprocess.DEVNULL,
            user=_postgres_user(),
        )
        try:
            yield port
        finally:
            subprocess.run(
                [*pg_ctl, "stop", "-m", "fast"],
                capture_output=True,
                check=False,
                user=_postgres_user(),
            )


def _postgres_user() -> str | None:
    # initdb refuses to run as root: the cluster belongs to the postgres user where we are root.
    return "postgres" if os.geteuid() == 0 else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def create_database(port: int, name: str) -> dict[str, str]:
    """A new database on the run's server; what the app's environment is formatted with."""
    psql = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))[-1]
    server = f"postgresql://postgres@127.0.0.1:{port}"
    subprocess.run(
        [psql, f"{server}/postgres", "-qc", f"CREATE DATABASE {name}"],
        check=True,
        capture_output=True,
    )
    return {"host": "127.0.0.1", "port": str(port), "database": name}


def run_side(
    spec: AppSpec, tree: Path, python: Path, database: dict[str, str]
) -> dict[str, Outcome]:
    """Prepare the app and run its tests on one side; each test's outcome by node id."""
    env = {name: value.format(**database) for name, value in spec.env.items()}
    env = {**os.environ, **env, "PYTHONDONTWRITEBYTECODE": "1"}
    env["PATH"] = f"{python.parent}:{env['PATH']}"
    # The app is importable from its folder, as its own install makes it; on hasten's side the
    # blocker comes first.
    paths = [str(tree.parent / "blocker")] if tree.name == "hasten" else []
    env["PYTHONPATH"] = os.pathsep.join([*paths, str(tree)])
    for command in spec.prepare:
        done = subprocess.run(
            command, shell=True, cwd=tree, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            log(f"{tree.name}: `{command}` failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")
            return {}
    report = tree / "report.xml"
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *spec.tests]
    # The app's own settings, never this repository's (its folder is under ours).
    configs = [tree / name for name in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")]
    config = next((path for path in configs if path.exists()), Path(os.devnull))
    command += ["-c", str(config), f"--rootdir={tree}"]
    started = time.monotonic()
    done = subprocess.run(
        [*command, f"--junitxml={report}"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    log(f"{tree.name}: pytest took {time.monotonic() - started:.0f} s")
    if not report.exists():
        log(f"{tree.name}: pytest wrote no report:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return {}
    return parse_report(report, prefix="")


def compare(reference: dict[str, Outcome], ours: dict[str, Outcome], show: bool) -> int:
    """How many of the tests that pass on FastAPI pass on hasten, test function by test function:
    an app's parameter ids may be random (a secret made per run), so the instances of one
    function are counted, not matched by id. With ``show``, each shortfall is printed."""
    passed = 0
    for function, instances in sorted(by_function(reference).items()):
        wanted = sum(outcome.passed for outcome in instances.values())
        mine = by_function(ours).get(function, {})
        got = min(wanted, sum(outcome.passed for outcome in mine.values()))
        passed += got
        if show and got < wanted:
            failing = [outcome.message for outcome in mine.values() if not outcome.passed]
            why = failing[0] if failing else "not collected"
            print(f"  {function}: {got}/{wanted}: {why}")
    return passed


def by_function(outcomes: dict[str, Outcome]) -> dict[str, dict[str, Outcome]]:
    functions: dict[str, dict[str, Outcome]] = {}
    for node, outcome in outcomes.items():
        functions.setdefault(node.split("[", maxsplit=1)[0], {})[node] = outcome
    return functions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", choices=sorted(APPS))
    parser.add_argument("--git", type=Path, help="a clone of the app's repository")
    parser.add_argument("--failures", action="store_true", help="list each failing test")
    options = parser.parse_args(argv)
    spec = APPS[options.name]
    source = export(spec, options.name, options.git)
    results: dict[str, dict[str, Outcome]] = {}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(postgres()) if spec.postgres else None
        for side in ("fastapi", "hasten"):
            tree = make_tree(spec, source, side)
            python = venv(spec, options.name, side)
            if side == "hasten":
                for path in port_dependencies(python, spec):
                    log(f"ported the dependency's {path}")
            database = create_database(server, f"app_{side}") if server else {}
            results[side] = run_side(spec, tree, python, database)
    reference, ours = results["fastapi"], results["hasten"]
    passing = sum(outcome.passed for outcome in reference.values())
    print(
        f"{options.name} at {spec.commit[:10]}: {passing} of {len(reference)} tests pass on "
        f"FastAPI; {compare(reference, ours, options.failures)} of those pass on hasten "
        f"({len(ours)} ran)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
