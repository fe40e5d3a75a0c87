#!/usr/bin/env bash
# The README's test command: installs what the tests need on a fresh Debian machine, then runs them.
# .ci/run calls exactly this. Re-running it on a set-up machine installs nothing and only tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use: bubblewrap (the run sandbox), chromium (visualizer browser tests),
# python3 and python3-pytest (the edit guard's Python syntax check; Python tasks in the offline eval suite),
# redis-server (the eval job queue's tests start their own on a free port), openssl (a self-signed
# certificate for the TLS test) and shellcheck (the process layer's shell programs are linted).
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import pytest' >/dev/null 2>&1 || missing+=(python3-pytest)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[test] installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "[test] need root or sudo to install: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm ci when node_modules is missing or older than the lock file (a fresh clone, or a pulled dependency change).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci
fi
npm test
