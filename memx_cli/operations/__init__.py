"""Operations: one verb per module (write, edit, reflect, transfer, feedback, stats, doctor,
validate), each a library call that a CLI command or an MCP tool makes."""
