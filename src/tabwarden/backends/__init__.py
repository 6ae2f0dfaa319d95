"""Backends: where a browser comes from (launched locally, or attached by endpoint)."""
