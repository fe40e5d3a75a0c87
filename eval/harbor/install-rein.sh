#!/bin/bash
# Installs Node.js (when missing or older than 20) and rein inside a task container.
# Offline when given tarballs: REIN_TARBALL (a bundle from pack-rein.sh, dependencies
# included) and NODE_TARBALL (an official node-v20+-linux-*.tar.xz/gz). Without them it
# falls back to the network: apt-get for Node, npm for rein (REIN_NPM_SPEC).
# Harbor renders this file as a Jinja template: it must not contain Jinja's brace pairs.
set -euo pipefail

prefix="${REIN_PREFIX:-/opt/rein}"
staged="${REIN_STAGED_DIR:-/installed-agent}"
rein_tarball="${REIN_TARBALL:-}"
node_tarball="${NODE_TARBALL:-}"
if [ -z "$rein_tarball" ] && [ -f "$staged/rein-bundle.tgz" ]; then rein_tarball="$staged/rein-bundle.tgz"; fi
if [ -z "$node_tarball" ]; then
  for candidate in "$staged"/node-v*-linux-*.tar.*; do
    if [ -f "$candidate" ]; then node_tarball="$candidate"; fi
  done
fi

say() { printf 'install-rein: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

mkdir -p "$prefix/bin"
if command -v node >/dev/null 2>&1 && [ "$(node_major)" -ge 20 ]; then
  say "using node $(node --version) at $(command -v node)"
elif [ -n "$node_tarball" ]; then
  [ -f "$node_tarball" ] || fail "NODE_TARBALL not found: $node_tarball"
  mkdir -p "$prefix/node"
  tar -xf "$node_tarball" -C "$prefix/node" --strip-components=1
  export PATH="$prefix/node/bin:$PATH"
  [ "$(node_major)" -ge 20 ] || fail "the node in $node_tarball is older than 20"
  say "installed node $(node --version) from $node_tarball"
elif command -v apt-get >/dev/null 2>&1; then
  say "no node >= 20 and no NODE_TARBALL: trying apt-get (needs network)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm git
  [ "$(node_major)" -ge 20 ] || fail "apt-get gave node $(node --version 2>/dev/null || echo none); rein needs 20+: pass NODE_TARBALL"
else
  fail "no node >= 20, no NODE_TARBALL and no apt-get"
fi
node_bin="$(command -v node)"

if [ -n "$rein_tarball" ]; then
  [ -f "$rein_tarball" ] || fail "REIN_TARBALL not found: $rein_tarball"
  rm -rf "$prefix/lib/rein"
  mkdir -p "$prefix/lib"
  tar -xf "$rein_tarball" -C "$prefix/lib"
  [ -f "$prefix/lib/rein/cli/bin/rein.js" ] || fail "$rein_tarball is not a rein bundle (no rein/cli/bin/rein.js)"
  entry="$prefix/lib/rein/cli/bin/rein.js"
  say "installed rein from $rein_tarball"
else
  spec="${REIN_NPM_SPEC:-rein-cli}"
  say "no REIN_TARBALL: npm install -g $spec (needs network)"
  npm install -g --prefix "$prefix/npm" "$spec"
  entry="$prefix/npm/lib/node_modules/rein-cli/bin/rein.js"
fi

# The launchers pin the node found above, so a PATH without it still runs rein.
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_bin" "$entry" >"$prefix/bin/rein"
chmod +x "$prefix/bin/rein"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$here/run-rein.sh" ]; then
  cp "$here/run-rein.sh" "$prefix/bin/rein-harbor-run"
elif [ -f "$prefix/lib/rein/adapters/harbor/run-rein.sh" ]; then
  cp "$prefix/lib/rein/adapters/harbor/run-rein.sh" "$prefix/bin/rein-harbor-run"
fi
[ -f "$prefix/bin/rein-harbor-run" ] || fail "run-rein.sh not found beside this script or in the bundle"
chmod +x "$prefix/bin/rein-harbor-run"
if [ -w /usr/local/bin ] && [ "${REIN_LINK_BIN:-1}" = 1 ]; then
  ln -sf "$prefix/bin/rein" /usr/local/bin/rein
  ln -sf "$prefix/bin/rein-harbor-run" /usr/local/bin/rein-harbor-run
fi
if [ -d "${HOME:-/nonexistent}" ] && ! grep -qs "$prefix/bin" "$HOME/.bashrc"; then
  echo "export PATH=\"$prefix/bin:\$PATH\"" >>"$HOME/.bashrc"
fi
"$prefix/bin/rein" --version >/dev/null || fail "rein does not start"
say "rein $("$prefix/bin/rein" --version) ready: $prefix/bin/rein"
echo "INSTALL SUCCESS!"
