"""The MCP server other agents are given: tools, API keys (who may read which components)
and the log of every call. `docsassistant mcp` serves it on stdio or streamable HTTP."""
