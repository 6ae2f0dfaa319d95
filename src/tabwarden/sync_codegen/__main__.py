"""``python -m tabwarden.sync_codegen``: rewrite ``sync.py`` from the async classes."""

from __future__ import annotations

from . import write

if __name__ == "__main__":
    print(write())
