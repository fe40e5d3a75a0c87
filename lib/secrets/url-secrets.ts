/** Query parameters that carry a credential in URLs (signed links, API keys in the query, OAuth codes and tokens). */
const SECRET_PARAMS =
  'access_token|refresh_token|id_token|token|auth|authorization|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|sig|signature|code|session|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|sv|se|sp|sr';

const QUERY_SECRET = new RegExp(`([?&](?:${SECRET_PARAMS})=)([^&\\s#'"\\\\]{4,})`, 'gi');
const USER_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"\\]+:)([^\s@/'"\\]{1,})@/gi;

/**
 * URLs with their secrets masked: a password in `scheme://user:password@host`, and the value of every query parameter
 * that carries a credential (`?token=…`, `&api_key=…`, `&X-Amz-Signature=…`). Applied to every trace line and every
 * line the CLI prints, so a `--base-url` with a key in it never sits where commands (or a shared trace) can read it.
 *
 * @example maskUrlSecrets('http://proxy/v1?api_key=abcd1234') // 'http://proxy/v1?api_key=[redacted]'
 */
export function maskUrlSecrets(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  return text.replace(USER_PASSWORD, '$1[redacted]@').replace(QUERY_SECRET, '$1[redacted]');
}
