"""The command line's parts that need no click (issue 29): ``base`` (output, the
per-invocation State, notices, the error report, the fast exit), shared with the click
CLI in memx_cli/cli, and ``search``, the search command's body and its lean start, which
a cold ``memx search`` takes without importing click or the CLI package."""

# the commands whose usual arguments are read without click (``executable`` for a process
# of its own, ``base.served_lean`` in the memx server): name -> the module of their body
LEAN = {"search": "memx_cli.command.search", "add": "memx_cli.command.add"}
