// Bundles the rein command (cli/dist/main.js, compiled by tsc) with the core and its dependencies into
// cli/dist/bundle/: a few files instead of some 550 modules, which is most of a run's start-up (docs/benchmarks.md,
// sections 12 and 16). Each command stays a chunk of its own, loaded when it runs, as in dist/. The workspace packages
// (telemetry, visualizer, eval) are in it too, so the process holds one copy of rein and of xstate (a second copy's
// machines and classes are not the first's); they find their own files (a worker, the page) by package name. Packages
// that read files beside their own modules (BullMQ's scripts) or are optional (esbuild, the MCP SDK) stay outside, as
// do the OpenTelemetry SDK and elkjs, which only the export and the page layout load, and the CommonJS packages rein
// imports with import() (@babel/parser, yaml): bundled, such an import would see only their default export. Run by `npm run build` after
// tsc; cli/bin/rein.js loads the bundle.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
rmSync(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });

// zod names its 40-odd message locales in one index that its namespace re-exports, so a bundle holds them all: a
// third of the code a run loads and compiles at start-up. rein's messages are English (zod's default, set by its
// own import of `en`): the index is bundled with `en` alone, and `z.locales` offers only that one.
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'english-only-zod' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'english-only-zod' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

await build({
  absWorkingDir: root,
  entryPoints: { main: 'dist/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['esbuild', '@modelcontextprotocol/sdk', 'bullmq', 'ioredis', 'elkjs', '@opentelemetry/*', '@babel/parser', 'yaml'],
  // A CommonJS dependency's require() of a Node built-in needs a require in an ES module.
  banner: { js: "import { createRequire as __reinCreateRequire } from 'node:module'; const require = __reinCreateRequire(import.meta.url);" },
  legalComments: 'none',
  plugins: [englishOnlyZod],
  logLevel: 'warning',
});
