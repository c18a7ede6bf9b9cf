"""The agent front ends (SPEC 5, SPEC 7): the MCP server, the agent session hook and
`memx setup`. The rules they use (access grants, notes, policies, session memory) live below
the facade, in store/ and operations/."""
