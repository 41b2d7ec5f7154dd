"""The modules hasten serves under ``fastapi.middleware``'s names (``hasten._switch``)."""
