"""Recipes: what a FastAPI user looks for first, each a runnable app that CI tests
(docs/recipes/ says how each works)."""
