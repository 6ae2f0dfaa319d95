#!/usr/bin/env bash
# Set-up shared by scripts/demo.sh and scripts/test.sh: a Chromium-based browser
# and a virtualenv (.venv) with tabwarden and its development tools.
# Safe to run again: it only does what is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

have_browser() {
  [ -n "${TABWARDEN_CHROME:-}" ] && return 0
  for name in chromium chromium-browser google-chrome google-chrome-stable microsoft-edge; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  return 1
}

if ! have_browser; then
  echo "== installing Chromium (apt-get)"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
      echo "error: Chromium is missing and this user cannot install it; run as root: apt-get install -y chromium" >&2
      exit 1
    }
    sudo_cmd="sudo"
  fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "error: tabwarden needs Python 3.11 or newer ($PYTHON is $("$PYTHON" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.tabwarden-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "== installing tabwarden and its dev tools into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' 2>&1 \
    | grep -v "^WARNING: Location" || true
  .venv/bin/python -c 'import tabwarden' # fail here, clearly, if the install did not work
  touch "$stamp"
fi

