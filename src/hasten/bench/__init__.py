"""``hasten bench``: load generation, statistics and reports.

The command is ``cli.add_parser`` and ``cli.run``; nothing here is imported by the framework.
"""
