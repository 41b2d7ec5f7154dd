"""Security schemes as dependencies, with FastAPI's names, modules and answers.

Each is an instance used with ``Depends()`` (or ``Security()`` to ask for OAuth2 scopes): it
reads the credentials from the request and returns them, or answers 401 ``Not
authenticated`` with the scheme's ``WWW-Authenticate`` header (``auto_error=False``: returns
None instead, for optional authentication). Each also describes itself for OpenAPI:
``scheme_name`` and ``security_scheme()``, the Security Scheme Object. The modules are
FastAPI's (``hasten.security.http`` for ``fastapi.security.http``, ...), so that an app's
imports port one for one.
"""

from hasten._params.dependencies import SecurityScopes
from hasten.security.api_key import APIKeyBase, APIKeyCookie, APIKeyHeader, APIKeyQuery
from hasten.security.base import SecurityBase, SecurityScheme
from hasten.security.http import (
    HTTPAuthorizationCredentials,
    HTTPBase,
    HTTPBasic,
    HTTPBasicCredentials,
    HTTPBearer,
    HTTPDigest,
)
from hasten.security.oauth2 import (
    OAuth2,
    OAuth2AuthorizationCodeBearer,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
    OAuth2PasswordRequestFormStrict,
)
from hasten.security.open_id_connect_url import OpenIdConnect

__all__ = [
    "APIKeyBase",
    "APIKeyCookie",
    "APIKeyHeader",
    "APIKeyQuery",
    "HTTPAuthorizationCredentials",
    "HTTPBase",
    "HTTPBasic",
    "HTTPBasicCredentials",
    "HTTPBearer",
    "HTTPDigest",
    "OAuth2",
    "OAuth2AuthorizationCodeBearer",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
    "OAuth2PasswordRequestFormStrict",
    "OpenIdConnect",
    "SecurityBase",
    "SecurityScheme",
    "SecurityScopes",
]
