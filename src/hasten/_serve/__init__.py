"""Serving: the one request path (runtime), the routes and their matcher, the middleware chain,
the protocol adapters, mounts, health endpoints, warm-up. It may import ``_observing`` and below."""
