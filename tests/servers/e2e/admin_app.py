"""A FastAPI app with an admin site and error reporting, each extension as its README shows
it, nothing changed for hasten: sqladmin over SQLAlchemy (SQLite, the file ``ADMIN_DB``
names), sentry-sdk (reporting to ``SENTRY_DSN``), starlette-exporter's metrics and
starlette-context's request id. Served by ``hasten run --as-fastapi``
(tests/servers/e2e/test_extensions.py), so imported only where the switch is on."""

import os

import sentry_sdk
from fastapi import FastAPI
from sqladmin import Admin, ModelView
from sqlalchemy import Integer, String, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from starlette_context import context, plugins
from starlette_context.middleware import RawContextMiddleware
from starlette_exporter import PrometheusMiddleware, handle_metrics

sentry_sdk.init(dsn=os.environ["SENTRY_DSN"], traces_sample_rate=1.0)


class Base(DeclarativeBase):
    pass


class Hero(Base):
    __tablename__ = "heroes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))


engine = create_engine(f"sqlite:///{os.environ['ADMIN_DB']}")
Base.metadata.create_all(engine)
with Session(engine) as session:
    if session.get(Hero, 1) is None:
        session.add(Hero(id=1, name="Deadpond"))
        session.commit()

app = FastAPI()
app.add_middleware(PrometheusMiddleware, group_paths=True)
app.add_route("/metrics", handle_metrics)
app.add_middleware(RawContextMiddleware, plugins=(plugins.RequestIdPlugin(),))


class HeroAdmin(ModelView, model=Hero):
    column_list = [Hero.id, Hero.name]  # noqa: RUF012  # as sqladmin's README writes it


admin = Admin(app, engine)
admin.add_view(HeroAdmin)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/heroes/{hero_id}")
async def hero(hero_id: int) -> dict[str, object]:
    return {"id": hero_id, "request_id": context["X-Request-ID"]}


@app.get("/boom/{code}")
async def boom(code: str) -> dict[str, str]:
    raise RuntimeError(f"boom {code}")
