"""A bigger application in the layout FastAPI users know: docs/tutorial/bigger-applications.md."""
