"""The dialog bridge: dialogs that survive a backend proxy that auto-dismisses native ones.

Some remote browser backends answer every native dialog within milliseconds, so
a page's ``confirm()`` silently returns false. With the bridge on, page script
overrides ``alert``/``confirm``/``prompt`` with a synchronous XHR to a magic
``*.invalid`` host; ``Fetch`` intercepts those requests (on every session, OOPIF
children included; the session's one ``Fetch.enable`` also carries the URL
policy's patterns, see ``Supervisor.fetch_commands``), the supervisor surfaces
each as a pending dialog, and the answer goes back with ``Fetch.fulfillRequest``
as JSON the script decodes. Where the XHR cannot be made (a strict CSP, say),
the script falls back to the native dialog.
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = [
    "BRIDGE_FETCH_PATTERN",
    "BRIDGE_HOST",
    "BRIDGE_PATTERN",
    "BRIDGE_SCRIPT",
    "bridge_commands",
    "fulfil_params",
]

BRIDGE_HOST = "dialog.tabwarden.invalid"
BRIDGE_PATTERN = f"*://{BRIDGE_HOST}/*"
BRIDGE_FETCH_PATTERN: dict[str, Any] = {"urlPattern": BRIDGE_PATTERN, "requestStage": "Request"}
"""The ``Fetch.enable`` pattern that pauses the bridge's requests."""

# A synchronous XHR blocks the page's script exactly as a native dialog does.
# text/plain keeps it a "simple" cross-origin request (no preflight); https keeps
# it allowed from https pages (the request never reaches a network anyway).
BRIDGE_SCRIPT = """(() => {
  if (window.__tabwardenDialogBridge) return;
  const native = {alert: window.alert, confirm: window.confirm, prompt: window.prompt};
  const ask = (type, message, fallbackArgs) => {
    try {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', 'https://__HOST__/' + type, false);
      xhr.setRequestHeader('Content-Type', 'text/plain');
      xhr.send(JSON.stringify({
        type, message: message === undefined ? '' : String(message),
        defaultPrompt: fallbackArgs.length > 1 && fallbackArgs[1] != null
          ? String(fallbackArgs[1]) : '',
        url: location.href,
      }));
      if (xhr.status !== 200) throw new Error('bridge status ' + xhr.status);
      return {answer: JSON.parse(xhr.responseText)};
    } catch (error) {
      return {fallback: native[type].apply(window, fallbackArgs)};
    }
  };
  const install = (name, convert) => {
    const replacement = function(...args) {
      const result = ask(name, args[0], args);
      return 'fallback' in result ? result.fallback : convert(result.answer.value);
    };
    Object.defineProperty(window, name, {value: replacement, writable: true, configurable: true});
  };
  install('alert', () => undefined);
  install('confirm', value => value === true);
  install('prompt', value => value === null || value === undefined ? null : String(value));
  Object.defineProperty(window, '__tabwardenDialogBridge', {value: true});
})();""".replace("__HOST__", BRIDGE_HOST)


def bridge_commands() -> list[tuple[str, dict[str, Any]]]:
    """The page script a page or frame session installs during set-up to have the bridge
    (its ``Fetch`` pattern goes into the session's one ``Fetch.enable``)."""
    return [
        (
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": BRIDGE_SCRIPT, "runImmediately": True},
        ),
    ]


def fulfil_params(
    request_id: str, dialog_type: str, accept: bool, prompt_text: str | None
) -> dict[str, Any]:
    """The ``Fetch.fulfillRequest`` that answers a bridged dialog."""
    value: Any = None
    if dialog_type == "confirm":
        value = accept
    elif dialog_type == "prompt":
        value = (prompt_text if prompt_text is not None else "") if accept else None
    body = json.dumps({"value": value}).encode()
    return {
        "requestId": request_id,
        "responseCode": 200,
        "responseHeaders": [
            {"name": "Content-Type", "value": "application/json"},
            {"name": "Access-Control-Allow-Origin", "value": "*"},
            {"name": "Cache-Control", "value": "no-store"},
        ],
        "body": base64.b64encode(body).decode(),
    }
