import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { SESSION_HEADER, SESSION_PARAM, SESSION_STORAGE_KEY } from '../page/session.js';

/**
 * Who may see a visualizer server's run and answer its approvals: only the browser that opened the address rein
 * printed to the terminal. The address carries a one-time key in its fragment (`/#key=…`), which no request sends;
 * the page trades it once (`POST /session`) for the session, keeps that in the tab's sessionStorage (per origin, so a
 * server on another port never sees it, as it would a cookie) and sends it with every request. Nothing the server
 * serves to anyone else holds a secret: `/` is a loader with no data, and `/page`, `/events` and `/approval` refuse
 * a request without the session. A process on this machine (a background job of the agent's, with the network on)
 * can reach the port but has neither the key (the terminal) nor the session (the browser).
 *
 * @example const access = createPageAccess(); const url = `${base}${access.fragment}`; if (!access.allows(request)) return 403;
 */
export function createPageAccess() {
  const key = randomBytes(24).toString('base64url');
  const session = randomBytes(32).toString('base64url');
  let keyUsed = false;
  return {
    /** What goes after the server's address in the printed URL. */
    fragment: `#key=${key}`,
    /** Trades the one-time key for the session; null when the key is wrong or was used already. */
    redeem(offered: unknown): string | null {
      if (keyUsed || typeof offered !== 'string' || !same(offered, key)) return null;
      keyUsed = true;
      return session;
    },
    /** Whether a request carries the session (header, or the query parameter an EventSource can send). */
    allows(request: IncomingMessage): boolean {
      const header = request.headers[SESSION_HEADER];
      const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get(SESSION_PARAM);
      const offered = typeof header === 'string' ? header : query;
      return offered !== null && same(offered, session);
    },
  };
}

function same(offered: string, secret: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The page every visitor of `/` gets: no data, no secret. In a tab opened from the printed address it redeems the
 * key, keeps the session, and replaces itself with the run's page fetched with it; a reload uses the kept session.
 */
export function loaderHtml(): string {
  const script = `(async () => {
  const say = (text) => { document.getElementById('boot').textContent = text; };
  const key = new URLSearchParams(location.hash.slice(1)).get('key');
  if (key) history.replaceState(null, '', location.pathname + location.search);
  let session = sessionStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)});
  if (key) {
    const redeemed = await fetch('/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
    if (redeemed.ok) {
      session = (await redeemed.json()).session;
      sessionStorage.setItem(${JSON.stringify(SESSION_STORAGE_KEY)}, session);
    }
  }
  if (!session) return say('Open the address rein printed in the terminal. It opens the page once, in one tab; reloading that tab keeps working.');
  // A delegated child's page lives at /agents/<dir>/ (its loader is this one): its page is beside it.
  // ?run=DIR&step=N: a run linked by a fork (the page's origin and fork links), opened in this tab with its session.
  const pagePath = location.pathname.startsWith('/agents/') ? location.pathname + 'page' : '/page';
  const page = await fetch(pagePath + location.search, { headers: { ${JSON.stringify(SESSION_HEADER)}: session } });
  if (page.status === 404) return say(await page.text());
  if (!page.ok) return say('This tab is not the one rein\\'s address was opened in. Open the address rein printed.');
  const html = await page.text();
  document.open();
  document.write(html);
  document.close();
})();`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'">
<title>rein</title>
</head>
<body>
<p id="boot">Opening the rein visualizer…</p>
<script>${script}</script>
</body>
</html>
`;
}
