#!/usr/bin/env bash
# The main job: set up, start the bundled demo site, and run a scripted agent
# session against it through tabwarden's public API, narrating each step.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec .venv/bin/python -m tabwarden demo "$@"
