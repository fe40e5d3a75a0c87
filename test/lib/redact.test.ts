import { describe, expect, it } from 'vitest';
import { redact } from '../../lib/secrets/redact.js';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';

describe('redact', () => {
  it('replaces every occurrence of a whole secret', () => {
    expect(redact(`key ${KEY} failed; retry with ${KEY}`, [KEY])).toBe('key [redacted] failed; retry with [redacted]');
  });

  it('masks a key a provider printed partly ("sk-proj-abcd…6789"): its head and its tail are gone', () => {
    const echoed = `Incorrect API key provided: ${KEY.slice(0, 12)}****************${KEY.slice(-8)}.`;
    expect(redact(echoed, [KEY])).toBe('Incorrect API key provided: [redacted]****************[redacted].');
  });

  it('masks the head alone and the tail alone', () => {
    expect(redact(`starts ${KEY.slice(0, 12)}…`, [KEY])).toBe('starts [redacted]…');
    expect(redact(`…ends ${KEY.slice(-8)}`, [KEY])).toBe('…ends [redacted]');
  });

  it('a head or tail shorter than the masked length is left alone (too short to identify the key)', () => {
    expect(redact(`${KEY.slice(0, 11)} ${KEY.slice(-7)}`, [KEY])).toBe(`${KEY.slice(0, 11)} ${KEY.slice(-7)}`);
  });

  it('a secret of exactly 16 characters is masked by its parts too', () => {
    const sixteen = 'k-0123456789abcd';
    expect(redact(`${sixteen.slice(0, 12)}…`, [sixteen])).toBe('[redacted]…');
  });

  it('a secret under 16 characters is masked whole but not by its parts, so common prefixes are not eaten', () => {
    const short = 'pw-1234567890ab';
    expect(redact(`${short} and ${short.slice(0, 12)}`, [short])).toBe(`[redacted] and ${short.slice(0, 12)}`);
  });

  it('ignores empty, missing and very short secrets (under 6 characters), which would match everywhere', () => {
    expect(redact('the key is abcde', ['', undefined, 'abcde'])).toBe('the key is abcde');
    expect(redact('the key is abcdef', ['abcdef'])).toBe('the key is [redacted]');
  });

  it('handles several secrets and text without any', () => {
    expect(redact('a=secret-one b=secret-two', ['secret-one', 'secret-two'])).toBe('a=[redacted] b=[redacted]');
    expect(redact('nothing here', [KEY])).toBe('nothing here');
  });
});
