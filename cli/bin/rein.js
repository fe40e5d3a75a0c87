#!/usr/bin/env node
// Thin launcher: the CLI is TypeScript compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
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
