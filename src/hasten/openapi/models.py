"""The OpenAPI 3.1 document as pydantic models, by the specification's names (FastAPI's
``fastapi.openapi.models``): for an app that reads or edits its document as objects
(``OpenAPI.model_validate(app.openapi())``), or gives a security scheme its flows as a model
(``OAuth2(flows=OAuthFlows(password=OAuthFlowPassword(tokenUrl="token")))``).

hasten builds its document as plain JSON (``hasten.openapi``); these models read and write
that same JSON. Every object takes the specification's extensions (``x-...``) and any member
it does not name. Needs pydantic.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal, Optional

from pydantic import AnyUrl, BaseModel, ConfigDict, Field
from typing_extensions import TypedDict  # pydantic reads only this one on Python < 3.12

__all__ = [
    "XML",
    "APIKey",
    "APIKeyIn",
    "Components",
    "Contact",
    "Discriminator",
    "Encoding",
    "Example",
    "ExternalDocumentation",
    "HTTPBase",
    "HTTPBearer",
    "Header",
    "Info",
    "License",
    "Link",
    "MediaType",
    "OAuth2",
    "OAuthFlow",
    "OAuthFlowAuthorizationCode",
    "OAuthFlowClientCredentials",
    "OAuthFlowImplicit",
    "OAuthFlowPassword",
    "OAuthFlows",
    "OpenAPI",
    "OpenIdConnect",
    "Operation",
    "Parameter",
    "ParameterInType",
    "PathItem",
    "Reference",
    "RequestBody",
    "Response",
    "Schema",
    "SchemaOrBool",
    "SchemaType",
    "SecurityBase",
    "SecurityScheme",
    "SecuritySchemeType",
    "Server",
    "ServerVariable",
    "Tag",
]


class _Object(BaseModel):
    """An OpenAPI object: extensions and members it does not name are kept."""

    model_config = ConfigDict(extra="allow")


# Info.
class Contact(_Object):
    name: str | None = None
    url: AnyUrl | None = None
    email: str | None = None


class License(_Object):
    name: str
    identifier: str | None = None
    url: AnyUrl | None = None


class Info(_Object):
    title: str
    version: str
    summary: str | None = None
    description: str | None = None
    termsOfService: str | None = None
    contact: Contact | None = None
    license: License | None = None


class ServerVariable(_Object):
    default: str
    enum: list[str] | None = Field(default=None, min_length=1)
    description: str | None = None


class Server(_Object):
    url: AnyUrl | str
    description: str | None = None
    variables: dict[str, ServerVariable] | None = None


class ExternalDocumentation(_Object):
    url: AnyUrl
    description: str | None = None


class Tag(_Object):
    name: str
    description: str | None = None
    externalDocs: ExternalDocumentation | None = None


class Reference(BaseModel):
    """``{"$ref": "#/components/..."}``."""

    ref: str = Field(alias="$ref")


# JSON Schema (2020-12, as OpenAPI 3.1 uses it).
SchemaType = Literal["array", "boolean", "integer", "null", "number", "object", "string"]


class Discriminator(BaseModel):
    propertyName: str
    mapping: dict[str, str] | None = None


class XML(_Object):
    name: str | None = None
    namespace: str | None = None
    prefix: str | None = None
    attribute: bool | None = None
    wrapped: bool | None = None


class Schema(_Object):
    """A JSON Schema: the keywords of its core, applicator, validation, format, content and
    meta-data vocabularies, and OpenAPI's own (``discriminator``, ``xml``, ...). The
    keywords Python cannot spell (``$ref``, ``not``, ``if``) end in ``_`` or are read by
    their alias."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    # Core.
    schema_: str | None = Field(default=None, alias="$schema")
    vocabulary: str | None = Field(default=None, alias="$vocabulary")
    id: str | None = Field(default=None, alias="$id")
    anchor: str | None = Field(default=None, alias="$anchor")
    dynamicAnchor: str | None = Field(default=None, alias="$dynamicAnchor")
    ref: str | None = Field(default=None, alias="$ref")
    dynamicRef: str | None = Field(default=None, alias="$dynamicRef")
    defs: dict[str, SchemaOrBool] | None = Field(default=None, alias="$defs")
    comment: str | None = Field(default=None, alias="$comment")
    # Applicators.
    allOf: list[SchemaOrBool] | None = None
    anyOf: list[SchemaOrBool] | None = None
    oneOf: list[SchemaOrBool] | None = None
    not_: Optional[SchemaOrBool] = Field(default=None, alias="not")  # noqa: UP045 - forward ref
    if_: Optional[SchemaOrBool] = Field(default=None, alias="if")  # noqa: UP045
    then: Optional[SchemaOrBool] = None  # noqa: UP045
    else_: Optional[SchemaOrBool] = Field(default=None, alias="else")  # noqa: UP045
    dependentSchemas: dict[str, SchemaOrBool] | None = None
    prefixItems: list[SchemaOrBool] | None = None
    items: Optional[SchemaOrBool] = None  # noqa: UP045
    contains: Optional[SchemaOrBool] = None  # noqa: UP045
    properties: dict[str, SchemaOrBool] | None = None
    patternProperties: dict[str, SchemaOrBool] | None = None
    additionalProperties: Optional[SchemaOrBool] = None  # noqa: UP045
    propertyNames: Optional[SchemaOrBool] = None  # noqa: UP045
    unevaluatedItems: Optional[SchemaOrBool] = None  # noqa: UP045
    unevaluatedProperties: Optional[SchemaOrBool] = None  # noqa: UP045
    # Validation.
    type: SchemaType | list[SchemaType] | None = None
    enum: list[Any] | None = None
    const: Any | None = None
    multipleOf: float | None = Field(default=None, gt=0)
    maximum: float | None = None
    exclusiveMaximum: float | None = None
    minimum: float | None = None
    exclusiveMinimum: float | None = None
    maxLength: int | None = Field(default=None, ge=0)
    minLength: int | None = Field(default=None, ge=0)
    pattern: str | None = None
    maxItems: int | None = Field(default=None, ge=0)
    minItems: int | None = Field(default=None, ge=0)
    uniqueItems: bool | None = None
    maxContains: int | None = Field(default=None, ge=0)
    minContains: int | None = Field(default=None, ge=0)
    maxProperties: int | None = Field(default=None, ge=0)
    minProperties: int | None = Field(default=None, ge=0)
    required: list[str] | None = None
    dependentRequired: dict[str, set[str]] | None = None
    # Format, content, meta-data.
    format: str | None = None
    contentEncoding: str | None = None
    contentMediaType: str | None = None
    contentSchema: Optional[SchemaOrBool] = None  # noqa: UP045
    title: str | None = None
    description: str | None = None
    default: Any | None = None
    deprecated: bool | None = None
    readOnly: bool | None = None
    writeOnly: bool | None = None
    examples: list[Any] | None = None
    # OpenAPI's.
    discriminator: Discriminator | None = None
    xml: XML | None = None
    externalDocs: ExternalDocumentation | None = None
    example: Any | None = None  # deprecated by OpenAPI 3.1: ``examples``


# A JSON Schema is an object or a boolean.
SchemaOrBool = Schema | bool


# Operations.
class Example(TypedDict, total=False):
    summary: str | None
    description: str | None
    value: Any | None
    externalValue: AnyUrl | None


class ParameterInType(Enum):
    query = "query"
    header = "header"
    path = "path"
    cookie = "cookie"


class Encoding(_Object):
    contentType: str | None = None
    headers: dict[str, Header | Reference] | None = None
    style: str | None = None
    explode: bool | None = None
    allowReserved: bool | None = None


class MediaType(_Object):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: Schema | Reference | None = Field(default=None, alias="schema")
    example: Any | None = None
    examples: dict[str, Example | Reference] | None = None
    encoding: dict[str, Encoding] | None = None


class _ParameterFields(_Object):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    description: str | None = None
    required: bool | None = None
    deprecated: bool | None = None
    style: str | None = None
    explode: bool | None = None
    allowReserved: bool | None = None
    schema_: Schema | Reference | None = Field(default=None, alias="schema")
    example: Any | None = None
    examples: dict[str, Example | Reference] | None = None
    content: dict[str, MediaType] | None = None


class Parameter(_ParameterFields):
    name: str
    in_: ParameterInType = Field(alias="in")


class Header(_ParameterFields):
    """A Parameter Object without its ``name`` and ``in`` (the header's name is its key)."""


class RequestBody(_Object):
    content: dict[str, MediaType]
    description: str | None = None
    required: bool | None = None


class Link(_Object):
    operationRef: str | None = None
    operationId: str | None = None
    parameters: dict[str, Any] | None = None
    requestBody: Any | None = None
    description: str | None = None
    server: Server | None = None


class Response(_Object):
    description: str
    headers: dict[str, Header | Reference] | None = None
    content: dict[str, MediaType] | None = None
    links: dict[str, Link | Reference] | None = None


class Operation(_Object):
    tags: list[str] | None = None
    summary: str | None = None
    description: str | None = None
    externalDocs: ExternalDocumentation | None = None
    operationId: str | None = None
    parameters: list[Parameter | Reference] | None = None
    requestBody: RequestBody | Reference | None = None
    # Keyed by status code, a range (``5XX``) or ``default``.
    responses: dict[str, Response | Any] | None = None
    callbacks: dict[str, dict[str, PathItem] | Reference] | None = None
    deprecated: bool | None = None
    security: list[dict[str, list[str]]] | None = None
    servers: list[Server] | None = None


class PathItem(_Object):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    ref: str | None = Field(default=None, alias="$ref")
    summary: str | None = None
    description: str | None = None
    get: Operation | None = None
    put: Operation | None = None
    post: Operation | None = None
    delete: Operation | None = None
    options: Operation | None = None
    head: Operation | None = None
    patch: Operation | None = None
    trace: Operation | None = None
    servers: list[Server] | None = None
    parameters: list[Parameter | Reference] | None = None


# Security schemes.
class SecuritySchemeType(Enum):
    apiKey = "apiKey"
    http = "http"
    oauth2 = "oauth2"
    openIdConnect = "openIdConnect"


class SecurityBase(_Object):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type_: SecuritySchemeType = Field(alias="type")
    description: str | None = None


class APIKeyIn(Enum):
    query = "query"
    header = "header"
    cookie = "cookie"


class APIKey(SecurityBase):
    type_: SecuritySchemeType = Field(default=SecuritySchemeType.apiKey, alias="type")
    in_: APIKeyIn = Field(alias="in")
    name: str


class HTTPBase(SecurityBase):
    type_: SecuritySchemeType = Field(default=SecuritySchemeType.http, alias="type")
    scheme: str


class HTTPBearer(HTTPBase):
    scheme: Literal["bearer"] = "bearer"
    bearerFormat: str | None = None


class OAuthFlow(_Object):
    refreshUrl: str | None = None
    scopes: dict[str, str] = Field(default_factory=dict)


class OAuthFlowImplicit(OAuthFlow):
    authorizationUrl: str


class OAuthFlowPassword(OAuthFlow):
    tokenUrl: str


class OAuthFlowClientCredentials(OAuthFlow):
    tokenUrl: str


class OAuthFlowAuthorizationCode(OAuthFlow):
    authorizationUrl: str
    tokenUrl: str


class OAuthFlows(_Object):
    implicit: OAuthFlowImplicit | None = None
    password: OAuthFlowPassword | None = None
    clientCredentials: OAuthFlowClientCredentials | None = None
    authorizationCode: OAuthFlowAuthorizationCode | None = None


class OAuth2(SecurityBase):
    type_: SecuritySchemeType = Field(default=SecuritySchemeType.oauth2, alias="type")
    flows: OAuthFlows


class OpenIdConnect(SecurityBase):
    type_: SecuritySchemeType = Field(default=SecuritySchemeType.openIdConnect, alias="type")
    openIdConnectUrl: str


SecurityScheme = APIKey | HTTPBase | OAuth2 | OpenIdConnect | HTTPBearer


# The document.
class Components(_Object):
    schemas: dict[str, Schema | Reference] | None = None
    responses: dict[str, Response | Reference] | None = None
    parameters: dict[str, Parameter | Reference] | None = None
    examples: dict[str, Example | Reference] | None = None
    requestBodies: dict[str, RequestBody | Reference] | None = None
    headers: dict[str, Header | Reference] | None = None
    securitySchemes: dict[str, SecurityScheme | Reference] | None = None
    links: dict[str, Link | Reference] | None = None
    callbacks: dict[str, dict[str, PathItem] | Reference | Any] | None = None
    pathItems: dict[str, PathItem | Reference] | None = None


class OpenAPI(_Object):
    openapi: str
    info: Info
    jsonSchemaDialect: str | None = None
    servers: list[Server] | None = None
    paths: dict[str, PathItem | Any] | None = None
    webhooks: dict[str, PathItem | Reference] | None = None
    components: Components | None = None
    security: list[dict[str, list[str]]] | None = None
    tags: list[Tag] | None = None
    externalDocs: ExternalDocumentation | None = None


for _model in (Schema, Encoding, Operation, PathItem, Components, OpenAPI):
    _model.model_rebuild()
