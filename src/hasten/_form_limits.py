"""FastAPI's ``fastapi._form_limits`` module, by its name: the type of ``form_limits={...}``
(``max_fields``, ``max_files``, ``max_part_size``), for code written against FastAPI's private
module, FastAPI's own tests among it. hasten's name for it is ``FormLimitsKeywords``."""

from hasten._settings import FormLimitsKeywords as _FormLimits

__all__ = ["_FormLimits"]
