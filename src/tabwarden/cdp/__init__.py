"""CDP client: sans-I/O protocol, asyncio connection, sessions."""
