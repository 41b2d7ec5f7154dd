"""The command line: ``hasten run | routes | openapi | port``, the servers it launches and how
it loads the app. It may import every layer below it (the public modules and the engine)."""
