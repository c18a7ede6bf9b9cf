"""The agent surface (SPEC 5, SPEC 7): MCP server, policies, working notes, access grants
and session memory."""
