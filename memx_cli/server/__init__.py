"""The warm path's host (issue 15): the per-user memx server.

``daemon`` keeps one warm ``Searcher`` per repository (indexes open, model loaded) and
serves the read commands (search, context, list) over a private Unix socket, running each
through the real CLI as the caller (``caller``); memx_cli/freshness tells it which stores
changed. The ``memx`` entry point that forwards those commands without importing the CLI
is memx_cli/executable.py; the wire format, the socket's place and start/stop/status are in
memx_cli/wire, which the CLI and ``doctor`` import without this package. Everything else,
and every case where the server cannot be used, runs in process as before. docs/server.md
explains the design.
"""
