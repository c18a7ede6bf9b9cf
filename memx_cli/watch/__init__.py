"""Which memory files changed, per store, without a stat per file (issue 15): the journal
and `Freshness` a warm searcher asks (`journal.py`; its fallback watcher is watchdog's
observer with marks), and the Linux watcher read without blocking (`drain.py`,
`inotify.py`). The memx server and the MCP server both keep one."""
