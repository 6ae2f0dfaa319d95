"""A bundled demo: a tiny static shop site and a scripted agent session against it.

Run it with ``tabwarden demo`` (or ``python -m tabwarden demo``); ``tabwarden demo
--serve`` only serves the site, and ``with DemoSite() as site:`` serves it from
Python. Nothing here reaches the internet: the site is served from this package on
``127.0.0.1``.

* :mod:`tabwarden.demo.server` — :class:`~tabwarden.demo.server.DemoSite`, a
  threaded ``http.server`` for the pages in ``site/`` plus a ``/status/<code>`` route.
* :mod:`tabwarden.demo.agent` — :func:`~tabwarden.demo.agent.run_demo`, the
  narrated session (navigate, history, a 404, a dialog, a popup, the tab list).
"""

from __future__ import annotations

from .server import DemoSite

__all__ = ["DemoSite"]
