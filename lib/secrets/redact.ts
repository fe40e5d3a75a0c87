/**
 * Replaces every secret (and any long prefix of it) in `text` with
 * `[redacted]`, so keys never reach a trace, a prompt or a message.
 *
 * @example redact('key sk-abc123 failed', ['sk-abc123']) // 'key [redacted] failed'
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 6) continue;
    result = result.split(secret).join('[redacted]');
    // Providers echo keys partly masked ("sk-proj-abc…wxyz"): drop recognizable heads and tails too.
    if (secret.length >= 16) {
      result = result.split(secret.slice(0, 12)).join('[redacted]').split(secret.slice(-8)).join('[redacted]');
    }
  }
  return result;
}
