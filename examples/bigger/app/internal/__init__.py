"""Routers the app includes but does not own (shared with other apps, say)."""
