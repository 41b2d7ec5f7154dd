"""The modules hasten serves as ``fastapi`` and ``starlette`` when its switch is on
(``hasten._switch``): each holds the public names of its FastAPI 0.165 or Starlette 1.10
namesake, as hasten's own objects."""
