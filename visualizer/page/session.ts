/** The header (and, for the event stream, the query parameter) a page sends its session in. */
export const SESSION_HEADER = 'x-rein-session';
export const SESSION_PARAM = 'session';
/** Where the tab keeps its session: sessionStorage is per origin (scheme, host and port), unlike a cookie. */
export const SESSION_STORAGE_KEY = 'rein-session';

/** The tab's session with the server that served it (empty for a page opened from a file). */
export function pageSession(): string {
  try {
    return sessionStorage.getItem(SESSION_STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

/** A same-server URL with the tab's session as a query parameter: EventSource cannot send headers. */
export function withSession(url: string): string {
  const session = pageSession();
  if (!session) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${SESSION_PARAM}=${encodeURIComponent(session)}`;
}
