"""HTML from Jinja2 templates: compiled once, autoescaped, sent as an HTMLResponse.

    templates = Jinja2Templates(directory="templates")

    @app.get("/")
    async def home(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(request, "home.html", {"user": "Ada"})

    @app.get("/fortunes")
    async def fortunes() -> HTMLResponse:
        return templates.render("fortunes.html", {"fortunes": rows})

Jinja2 is an optional extra: ``pip install 'hasten[templates]'``. The names are Starlette's
(``Jinja2Templates``, ``TemplateResponse``, ``get_template``, ``env``), with hasten's
``status=`` for the status code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hasten._http.debug import rendered_templates
from hasten._http.responses import HTMLResponse, Response

try:
    import jinja2
except ImportError as exc:  # pragma: no cover - the extra is installed in development
    raise ImportError("hasten.templating needs Jinja2: pip install 'hasten[templates]'") from exc

if TYPE_CHECKING:
    from hasten._http.requests import Request

__all__ = ["Jinja2Templates", "TemplateResponse"]

Directory = str | os.PathLike[str]
ContextProcessor = Callable[["Request"], Mapping[str, Any]]


class TemplateResponse(HTMLResponse):
    """A rendered template; ``template`` and ``context`` stay readable, for tests."""

    __slots__ = ("context", "template")

    def __init__(
        self,
        template: jinja2.Template,
        context: Mapping[str, Any],
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        media_type: str = "text/html",
        *,
        status_code: int | None = None,
    ) -> None:
        # Response's own __init__: HTMLResponse's fixes the media type.
        body = template.render(context)
        Response.__init__(self, body, status, headers, media_type, status_code=status_code)
        self.template = template
        self.context = context
        seen = rendered_templates.get()
        if seen is not None:  # a TestClient's request: response.template, .context
            seen.append((template, context))


class _DirectoryOrEnv(TypeError, AssertionError):
    """Jinja2Templates given neither or both: a TypeError, and the AssertionError Starlette
    raises, for code that catches that."""


@jinja2.pass_context
def _url_for(context: jinja2.runtime.Context, name: str, /, **path_params: Any) -> str:
    """``request.url_for``, for the request the template is rendered for."""
    request: Request = context["request"]
    return request.url_for(name, **path_params)


class Jinja2Templates:
    """Templates from ``directory`` (or a ready ``env``), compiled on first use and kept.

    Autoescaping is on for ``.html``, ``.htm``, ``.xml`` and ``.jinja`` templates (Jinja2's
    ``select_autoescape``). Templates are not reloaded when their files change, unless
    ``auto_reload=True`` (then Jinja2 checks the file at each use: for development); with
    ``env=``, that environment's ``auto_reload`` decides.
    """

    def __init__(
        self,
        directory: Directory | Sequence[Directory] | None = None,
        *,
        env: jinja2.Environment | None = None,
        context_processors: Sequence[ContextProcessor] = (),
        auto_reload: bool = False,
    ) -> None:
        if (directory is None) == (env is None):
            raise _DirectoryOrEnv(
                "Jinja2Templates: either 'directory' or 'env' arguments must be passed, not both"
            )
        if env is None:
            env = jinja2.Environment(
                loader=jinja2.FileSystemLoader(directory),  # type: ignore[arg-type]
                autoescape=jinja2.select_autoescape(("html", "htm", "xml", "jinja")),
                auto_reload=auto_reload,
            )
        # Starlette's: ``{{ url_for("static", path="/site.css") }}`` in any template.
        env.globals.setdefault("url_for", _url_for)
        self.env = env
        self.context_processors = list(context_processors)
        self._reload = env.auto_reload
        self._compiled: dict[str, jinja2.Template] = {}

    def get_template(self, name: str) -> jinja2.Template:
        """The template ``name``, compiled on its first use only."""
        # perf: a dict lookup; Jinja2's own cache also checks the file when auto_reload is on.
        template = self._compiled.get(name)
        if template is None:
            template = self.env.get_template(name)
            if not self._reload:
                self._compiled[name] = template
        return template

    def render(
        self,
        name: str,
        context: Mapping[str, Any] | None = None,
        *,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        media_type: str = "text/html",
        status_code: int | None = None,
    ) -> TemplateResponse:
        """The template ``name`` rendered with ``context``, as an HTML response (``status``
        200 by default, or ``status_code``, Starlette's name)."""
        template = self.get_template(name)
        return TemplateResponse(
            template, context or {}, status, headers, media_type, status_code=status_code
        )

    def TemplateResponse(  # Starlette's name
        self,
        request: Request,
        name: str,
        context: Mapping[str, Any] | None = None,
        status: int | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        media_type: str = "text/html",
        status_code: int | None = None,
    ) -> TemplateResponse:
        """Starlette's call: ``render`` with ``request`` in the context (as ``request``), and
        what each context processor returns for it."""
        values = dict(context or {})
        values.setdefault("request", request)
        for processor in self.context_processors:
            values.update(processor(request))
        return self.render(
            name,
            values,
            status=status,
            headers=headers,
            media_type=media_type,
            status_code=status_code,
        )
