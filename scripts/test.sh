#!/usr/bin/env bash
# The whole test suite: lint, types, and the tests (against a real Chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy --strict (src)"
.venv/bin/mypy
echo "== pytest"
# Two workers, one test module per worker: modules share one Chromium each.
exec .venv/bin/pytest -n 2 --dist loadfile "$@"
