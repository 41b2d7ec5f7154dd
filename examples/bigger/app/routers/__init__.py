"""One module per part of the API, each with an APIRouter of its own."""
