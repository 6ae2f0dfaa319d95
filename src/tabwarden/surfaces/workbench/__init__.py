"""The workbench: a local web page where a person sees, follows and takes over what the
agent does, live (server.py serves it; viewer.py is one open page; static/ the page)."""

from .server import Workbench, WorkbenchOptions

__all__ = ["Workbench", "WorkbenchOptions"]
