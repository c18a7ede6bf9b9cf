"""`memx setup AGENT`: the MCP server entry and lifecycle hooks in each agent's own
configuration files (registry), in their own formats (one module per format)."""
