#!/bin/bash
# pack-rein.sh [OUT]: rein with its production dependencies as one tarball (no network),
# the REIN_TARBALL install-rein.sh installs from. OUT ending in .tar is left uncompressed;
# anything else is gzipped (default: ./rein-bundle.tgz). Builds dist/ first if it is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$PWD/rein-bundle.tgz}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
cd "$root"
[ -f cli/dist/main.js ] || npm run build >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# The files npm would publish (each package.json "files"): the core at the root and the
# packages the CLI needs in their own folders (package rein-<folder> in <folder>/), as npm
# itself lists them; then the production dependencies as installed here (a nested one is
# inside its parent's folder; the workspace links node_modules/rein-* stay links).
{
  npm pack --dry-run --json --ignore-scripts --include-workspace-root -w rein-telemetry -w rein-visualizer -w rein-eval -w rein-cli 2>/dev/null |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { for (const pkg of JSON.parse(s)) for (const f of pkg.files) console.log(pkg.name === "rein" ? f.path : `${pkg.name.replace(/^rein-/, "")}/${f.path}`); });'
  npm ls --omit=dev --all --parseable 2>/dev/null | tail -n +2 | sed "s|^$root/||" | grep -v '/node_modules/' | grep -Ev '^(cli|eval|telemetry|visualizer|dev)(/|$)' | grep -v '^node_modules/rein-dev$' || true
  echo eval/harbor/run-rein.sh
  echo eval/harbor/install-rein.sh
} >"$stage/files"
# One pass, no copy: every path goes into the archive under rein/.
case "$out" in
  *.tar) tar -cf "$out" --transform 's,^,rein/,S' -T "$stage/files" ;;
  *) tar -czf "$out" --transform 's,^,rein/,S' -T "$stage/files" ;;
esac
echo "$out"
