"""OpenAPI: the document generated from the routes' parameter descriptions, and its docs page.

``get_openapi`` builds a document from routes (FastAPI's function of that name), and
``generate_unique_id`` names an operation as FastAPI's ``fastapi.utils`` does;
``app.openapi()`` returns the app's, generated once. ``openapi_30`` renders a document as
OpenAPI 3.0 for client generators that do not read 3.1.
"""

from hasten.openapi.document import app_openapi, get_openapi
from hasten.openapi.operations import generate_unique_id
from hasten.openapi.schemas import SchemaHook
from hasten.openapi.v30 import openapi_30

__all__ = ["SchemaHook", "app_openapi", "generate_unique_id", "get_openapi", "openapi_30"]
