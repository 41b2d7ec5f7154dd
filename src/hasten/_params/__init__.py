"""Reading a handler's parameters from a request: the markers users write (``markers``), each
parameter described once (``descriptions``), how a route's reading is planned (``plan``) and
written out as one coroutine (``solver``), the readers (``extractors``), validation, and the
endpoint that ties them to the handler and its renderer. It may import ``_http``, ``_flow``,
``_running`` and ``_settings``. docs/internals.md follows one parameter through it."""
