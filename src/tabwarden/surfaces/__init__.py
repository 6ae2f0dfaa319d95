"""Surfaces over the tool registry: the CLI daemon, the MCP server."""
