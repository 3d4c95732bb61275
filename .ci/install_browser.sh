#!/usr/bin/env bash
# Install Debian's Chromium for tests/test_browser.py, only when it is missing (idempotent, quiet).
# Playwright drives this system browser (executable_path); its own browser download cannot work
# on a machine whose network reaches only the package registries.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "error: chromium is missing and installing it needs root (apt-get install chromium)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
