import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ReinError } from 'rein/lib';
import type { PageData } from './page-data.js';

/** The bundled page: `visualizer/scripts/bundle-visualizer.mjs` writes both next to the compiled server. */
interface PageAssets {
  js: string;
  css: string;
}

// Compiled: visualizer/dist/server/ → visualizer/dist/. From source (tests): visualizer/server/ → visualizer/dist/.
const ASSET_DIRS = ['../', '../dist/'];

/**
 * Reads the bundled page script and styles.
 *
 * @example const html = renderPageHtml(data, loadPageAssets());
 */
export function loadPageAssets(): PageAssets {
  // Bundled into the rein command (cli/scripts/bundle-cli.mjs), this module finds its package by name.
  const packageDist = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('rein-visualizer/package.json')), 'dist/')).href;
  for (const dir of [...ASSET_DIRS.map((relative) => new URL(relative, import.meta.url).href), packageDist]) {
    const js = fileURLToPath(new URL('page.js', dir));
    const css = fileURLToPath(new URL('page.css', dir));
    if (existsSync(js) && existsSync(css)) return { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
  }
  throw new ReinError('the visualizer page is not built: run `npm run build` in the rein checkout');
}

/**
 * One self-contained HTML document: styles, script and data inline, and a
 * content policy that forbids loading anything, so it opens from disk with no
 * network (a live page may only talk back to the server that served it).
 *
 * @example writeFileSync('run.html', renderPageHtml({ mode: 'replay', ... }, loadPageAssets()));
 */
export function renderPageHtml(data: PageData, assets: PageAssets): string {
  const connect = data.eventsUrl ? "'self'" : "'none'";
  const policy = `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src ${connect}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<title>rein · ${escapeHtml(titleOf(data))}</title>
<style>${assets.css.replace(/<\/style/gi, '<\\/style')}</style>
</head>
<body>
<div id="app" class="app"><p class="boot">Loading the rein visualizer…</p></div>
<script type="application/json" id="rein-data">${jsonForScript(data)}</script>
<script>${assets.js.replace(/<\/script/gi, '<\\/script')}</script>
</body>
</html>
`;
}

function titleOf(data: PageData): string {
  return data.mode === 'live' ? 'live run' : data.source.split(/[\\/]/).slice(-3).join('/');
}

/** JSON that cannot end the script element it sits in. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
}
