#!/bin/sh
':' //; case " $NODE_OPTIONS " in *semi-space-size*) exec node "$0" "$@" ;; esac; exec node --max-semi-space-size=2 "$0" "$@"
// The line above is for sh, which runs this file through the bin link: it starts node with a young generation of
// 2 MB semi-spaces (V8 reads the flag only at start-up), which holds a long run's peak RSS near what it keeps, at
// about the same CPU (docs/benchmarks.md, section 16). A semi-space size in NODE_OPTIONS wins.
// For node the line is a string and a comment; `node cli/bin/rein.js` runs with V8's defaults.
// Thin launcher: the CLI is TypeScript compiled to dist/ by `npm ci` (prepare) or `npm run build`, and bundled with
// the core into dist/bundle/ (cli/scripts/bundle-cli.mjs), which starts in a fraction of the time of dist/'s modules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundled = new URL('../dist/bundle/main.js', import.meta.url);
const entry = existsSync(fileURLToPath(bundled)) ? bundled : new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('rein: not built yet. Run `npm ci` (or `npm run build`) in the rein checkout first.');
  process.exit(2);
}
// `rein rules graph | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => { if (error.code === 'EPIPE') process.exit(0); else throw error; });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
