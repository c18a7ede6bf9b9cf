"""How a memx process reaches the memx server (issue 15) without importing the host: the
frames on the wire (`protocol.py`), where the socket lives and the checks that keep it
private (`paths.py`), and start, stop and status from a full memx process (`control.py`).

This package's ``__init__`` stays empty: the thin client (memx_cli/executable.py) imports it.
"""
