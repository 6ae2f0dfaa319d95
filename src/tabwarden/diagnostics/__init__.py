"""Diagnostics of a browser session: console, network, downloads, storage, emulation, traces."""
