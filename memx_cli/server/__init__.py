"""The warm path (issue 15): a per-user memx server and the thin ``memx`` client.

``daemon`` keeps one warm ``Searcher`` per repository (indexes open, model loaded) and
serves the read commands (search, context, list) over a private Unix socket; ``watch``
tells it which stores changed; ``client`` is the ``memx`` entry point that forwards those
commands without importing the CLI. Everything else, and every case where the server
cannot be used, runs in process as before. docs/server.md explains the design.

This package's ``__init__`` stays empty: the thin client imports it.
"""
