// Type-checks the visualizer page (browser TypeScript, which the main tsconfig does not cover),
// then bundles it with esbuild into dist/page.js and page.css. The server and
// `rein viz --out` inline both into one HTML file; nothing is loaded from the network.
// Run by `npm run build` after tsc. REIN_VIZ_DEBUG=1 skips minifying.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
// typescript is hoisted to the workspace root's node_modules: found through Node's resolution, not a fixed path.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

try {
  execFileSync(process.execPath, [tsc, '-p', 'page/tsconfig.json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
} catch (error) {
  process.stderr.write(`visualizer page: type errors\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  process.exit(1);
}

await build({
  absWorkingDir: root,
  entryPoints: { page: 'page/main.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome111', 'firefox113', 'safari16.4'],
  minify: !process.env.REIN_VIZ_DEBUG,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});
