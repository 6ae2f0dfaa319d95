"""tabwarden: a browser-control runtime for AI agents, on the Chrome DevTools Protocol.

The async API::

    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab("http://localhost:8000/")
        print(tab.title)

The same names, synchronously: :mod:`tabwarden.sync`.
"""

from __future__ import annotations

from .api import SessionStart, attach, launch
from .backends.base import Backend, Endpoint
from .backends.cloud import CloudBackend
from .backends.external import AttachRequest, CDPEndpoint
from .backends.local import LocalChromium, LocalOptions
from .budget import Budget
from .config import Config, load_config
from .diagnostics.console import ConsoleEntry, ConsoleReport
from .diagnostics.emulation import EmulationResult, EmulationState
from .diagnostics.network import NetworkReport, NetworkRequest, RequestDetails
from .diagnostics.storage import StorageResult
from .errors import (
    ActionError,
    BiDiError,
    BiDiTimeout,
    BrowserCrashed,
    BrowserError,
    BrowserLaunchError,
    BrowserNotFound,
    BrowserNotResponding,
    Cancelled,
    CDPError,
    CDPTimeout,
    CloudAuthError,
    CloudCreateTimeout,
    CloudError,
    CloudQueued,
    CloudQuotaError,
    CloudServerError,
    ConfigError,
    ConnectionLost,
    ConsentRequired,
    DaemonNotRunning,
    DaemonUnreachable,
    DeadlineExceeded,
    DialogBlocking,
    EndpointError,
    EngineUnsupported,
    EvaluateDisabled,
    EvaluateTimeout,
    InvalidArgument,
    InvalidURL,
    NavigationError,
    NavigationFailed,
    NavigationTimeout,
    NoHistoryEntry,
    NotActionable,
    PageBusy,
    PathNotAllowed,
    PersonInControl,
    PolicyDenied,
    ProfileInUse,
    RefError,
    RemoteError,
    ScriptError,
    SessionClosed,
    SessionError,
    SessionLimitReached,
    SessionNotFound,
    SessionReaped,
    StaleRefError,
    TabClosed,
    TabCrashed,
    TabNotFound,
    TabUnavailable,
    TabwardenError,
    UnknownRef,
)
from .manager import SessionManager
from .navigation import NavigationResult
from .relaunch import Relaunch
from .safety.guard import PolicyDecision
from .safety.url_policy import UrlPolicy, Verdict
from .session import BrowserSession
from .snapshot import Snapshot, SnapshotNode
from .supervisor.dialogs import ClosedDialog, PendingDialog
from .supervisor.state import SupervisorState
from .tab import Tab, TabInfo

__version__ = "0.1.0"

__all__ = [
    "ActionError",
    "AttachRequest",
    "Backend",
    "BiDiError",
    "BiDiTimeout",
    "BrowserCrashed",
    "BrowserError",
    "BrowserLaunchError",
    "BrowserNotFound",
    "BrowserNotResponding",
    "BrowserSession",
    "Budget",
    "CDPEndpoint",
    "CDPError",
    "CDPTimeout",
    "Cancelled",
    "ClosedDialog",
    "CloudAuthError",
    "CloudBackend",
    "CloudCreateTimeout",
    "CloudError",
    "CloudQueued",
    "CloudQuotaError",
    "CloudServerError",
    "Config",
    "ConfigError",
    "ConnectionLost",
    "ConsentRequired",
    "ConsoleEntry",
    "ConsoleReport",
    "DaemonNotRunning",
    "DaemonUnreachable",
    "DeadlineExceeded",
    "DialogBlocking",
    "EmulationResult",
    "EmulationState",
    "Endpoint",
    "EndpointError",
    "EngineUnsupported",
    "EvaluateDisabled",
    "EvaluateTimeout",
    "InvalidArgument",
    "InvalidURL",
    "LocalChromium",
    "LocalOptions",
    "NavigationError",
    "NavigationFailed",
    "NavigationResult",
    "NavigationTimeout",
    "NetworkReport",
    "NetworkRequest",
    "NoHistoryEntry",
    "NotActionable",
    "PageBusy",
    "PathNotAllowed",
    "PendingDialog",
    "PersonInControl",
    "PolicyDecision",
    "PolicyDenied",
    "ProfileInUse",
    "RefError",
    "Relaunch",
    "RemoteError",
    "RequestDetails",
    "ScriptError",
    "SessionClosed",
    "SessionError",
    "SessionLimitReached",
    "SessionManager",
    "SessionNotFound",
    "SessionReaped",
    "SessionStart",
    "Snapshot",
    "SnapshotNode",
    "StaleRefError",
    "StorageResult",
    "SupervisorState",
    "Tab",
    "TabClosed",
    "TabCrashed",
    "TabInfo",
    "TabNotFound",
    "TabUnavailable",
    "TabwardenError",
    "UnknownRef",
    "UrlPolicy",
    "Verdict",
    "__version__",
    "attach",
    "launch",
    "load_config",
]
