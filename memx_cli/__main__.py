from memx_cli.cli import entry

entry()
