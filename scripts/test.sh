#!/usr/bin/env bash
# The whole test suite: lint, types, and the tests (against a real Chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# Third-party packages the browser tests drive (rich-text editors), pinned by
# tests/thirdparty/package-lock.json: `npm ci` when missing or stale.
if ! command -v npm >/dev/null 2>&1; then
  echo "== installing Node.js and npm (apt-get)"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq nodejs npm >/dev/null
fi
.venv/bin/python -m tests.npm_packages
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy --strict (src)"
.venv/bin/mypy
echo "== pytest"
# Two workers, one test module per worker: modules share one Chromium each.
exec .venv/bin/pytest -n 2 --dist loadfile "$@"
