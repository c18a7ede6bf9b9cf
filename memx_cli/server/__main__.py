"""``python -m memx_cli.server``: run the memx server in the foreground (its log is
standard error). The thin client and `memx server start` start it detached."""

import sys

from memx_cli.server.daemon import main

sys.exit(main())
