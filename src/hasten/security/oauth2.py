"""OAuth2: bearer tokens from a password or authorization-code flow, the password flow's
form, and the scopes a route requires (``SecurityScopes``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from hasten._http.connection import Connection
from hasten._params.dependencies import SecurityScopes, reads_now
from hasten._params.markers import Form
from hasten.security.base import SecurityScheme

__all__ = [
    "OAuth2",
    "OAuth2AuthorizationCodeBearer",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
    "OAuth2PasswordRequestFormStrict",
    "SecurityScopes",
]


class OAuth2(SecurityScheme):
    """OAuth2 with the ``flows`` given (OpenAPI's OAuth Flows Object, a dict or a
    ``hasten.openapi.models.OAuthFlows``): returns the whole ``Authorization`` header, whatever
    its scheme (FastAPI's; a subclass reads the token)."""

    def __init__(
        self,
        *,
        flows: Any = None,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.flows = _flows(flows)

    def _scheme(self) -> dict[str, Any]:
        return {"type": "oauth2", "flows": self.flows}

    @reads_now
    async def __call__(self, request: Connection) -> str | None:
        return self.read_now(request)

    def read_now(self, request: Connection) -> str | None:
        """The token, read from the request's header (what ``__call__`` returns)."""
        authorization = request._header("authorization")
        if not authorization:
            self._refuse()
            return None
        return authorization


def _flows(flows: Any) -> dict[str, Any]:
    """The OAuth Flows Object as JSON: each flow without its unset (None) fields."""
    if flows is None:
        return {}
    if not isinstance(flows, Mapping):  # a pydantic model of hasten.openapi.models
        dumped: dict[str, Any] = flows.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    return {
        name: {key: value for key, value in _fields(flow).items() if value is not None}
        for name, flow in flows.items()
        if flow is not None
    }


def _fields(flow: Any) -> Mapping[str, Any]:
    if isinstance(flow, Mapping):
        return flow
    found: dict[str, Any] = flow.model_dump(by_alias=True, exclude_none=True, mode="json")
    return found


class _BearerFlow(OAuth2):
    """OAuth2 whose token the client sends as ``Authorization: Bearer <token>``: returns the
    token."""

    @reads_now
    async def __call__(self, request: Connection) -> str | None:
        return self.read_now(request)

    def read_now(self, request: Connection) -> str | None:
        """The token, read from the request's header (what ``__call__`` returns)."""
        authorization = request._header("authorization")
        if not authorization:
            self._refuse()
            return None
        # perf: ``get_authorization_scheme_param`` written out, a frame less per request;
        # tests/project/test_perf_copies.py holds the two equal.
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer":
            self._refuse()
            return None
        return token.strip()


class OAuth2PasswordBearer(_BearerFlow):
    """A bearer token obtained at ``tokenUrl`` with a username and password: returns the
    token (the route checks it)."""

    def __init__(  # noqa: PLR0917 - FastAPI's signature
        self,
        tokenUrl: str,
        scheme_name: str | None = None,
        scopes: dict[str, str] | None = None,
        description: str | None = None,
        auto_error: bool = True,
        refreshUrl: str | None = None,
    ) -> None:
        flow = {"tokenUrl": tokenUrl, "refreshUrl": refreshUrl, "scopes": dict(scopes or {})}
        super().__init__(
            flows={"password": flow},
            scheme_name=scheme_name,
            description=description,
            auto_error=auto_error,
        )


class OAuth2AuthorizationCodeBearer(_BearerFlow):
    """A bearer token obtained by OAuth2's authorization-code flow (``authorizationUrl``,
    then ``tokenUrl``): returns the token."""

    def __init__(  # noqa: PLR0917 - FastAPI's signature
        self,
        authorizationUrl: str,
        tokenUrl: str,
        refreshUrl: str | None = None,
        scheme_name: str | None = None,
        scopes: dict[str, str] | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        flow = {
            "authorizationUrl": authorizationUrl,
            "tokenUrl": tokenUrl,
            "refreshUrl": refreshUrl,
            "scopes": dict(scopes or {}),
        }
        super().__init__(
            flows={"authorizationCode": flow},
            scheme_name=scheme_name,
            description=description,
            auto_error=auto_error,
        )


class OAuth2PasswordRequestForm:
    """The form of OAuth2's password flow, as a dependency:
    ``form: Annotated[OAuth2PasswordRequestForm, Depends()]``. ``scopes`` is ``scope`` split
    on spaces."""

    def __init__(
        self,
        *,
        grant_type: Annotated[str | None, Form(pattern="^password$")] = None,
        username: Annotated[str, Form()],
        password: Annotated[str, Form(json_schema_extra={"format": "password"})],
        scope: Annotated[str, Form()] = "",
        client_id: Annotated[str | None, Form()] = None,
        client_secret: Annotated[str | None, Form(json_schema_extra={"format": "password"})] = None,
    ) -> None:
        self.grant_type = grant_type
        self.username = username
        self.password = password
        self.scopes = scope.split()
        self.client_id = client_id
        self.client_secret = client_secret


class OAuth2PasswordRequestFormStrict(OAuth2PasswordRequestForm):
    """``OAuth2PasswordRequestForm`` that requires ``grant_type=password``, as the OAuth2
    spec does."""

    def __init__(  # noqa: PLR0917 - FastAPI's signature
        self,
        grant_type: Annotated[str, Form(pattern="^password$")],
        username: Annotated[str, Form()],
        password: Annotated[str, Form()],
        scope: Annotated[str, Form()] = "",
        client_id: Annotated[str | None, Form()] = None,
        client_secret: Annotated[str | None, Form()] = None,
    ) -> None:
        super().__init__(
            grant_type=grant_type,
            username=username,
            password=password,
            scope=scope,
            client_id=client_id,
            client_secret=client_secret,
        )
