"""The session a surface's tool calls run in: one per MCP client, CLI daemon or API user."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConsentRequired

if TYPE_CHECKING:
    from ..manager import SessionManager
    from ..session import BrowserSession
    from ..tab import Tab

__all__ = ["ToolContext"]


class ToolContext:
    """Gives handlers their session (started on first use) and the tab a call is about."""

    def __init__(self, manager: SessionManager, name: str = "default") -> None:
        self.manager = manager
        self.name = name
        self.cdp_url: str | None = None
        """Set by browser_attach: the session then drives that browser instead."""

    async def session(self) -> BrowserSession:
        return await self.manager.get_or_create(self.name, cdp_url=self.cdp_url)

    async def tab(self, tab_id: str | None = None) -> Tab:
        session = await self.session()
        if tab_id is not None:
            return session.get_tab(tab_id)
        return await session.current_tab()

    async def attach(self, cdp_url: str, consent: bool) -> BrowserSession:
        if not consent:
            raise ConsentRequired(
                f"attaching to the browser at {cdp_url} gives this agent its tabs, cookies "
                "and logins",
                hint="ask the user first; call again with consent=true once they agree",
            )
        self.cdp_url = cdp_url
        return await self.session()

    async def close(self) -> None:
        if self.name in self.manager.names():
            await self.manager.close(self.name)
        self.cdp_url = None
