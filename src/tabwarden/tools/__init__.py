"""Tools: each defined once (spec, params, handler) and served by every surface."""
