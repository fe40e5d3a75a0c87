import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../lib/secrets/secret-scan.js';
import { redactTraceLine } from '../../run/record/trace.js';
import { call, reply, runScripted } from '../../testing/index.js';

// Issue 38, class 6: no secret leaves rein unmasked, whatever file or channel it came by.

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const body = pem.split('\n').slice(1, -2).join('\n');
const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('masking', () => {
  it('AGENTS.md is masked before the model reads it', async () => {
    const token = `ghp_${'a1B2c3D4'.repeat(5).slice(0, 36)}`;
    const run = await runScripted({
      files: { 'AGENTS.md': `Deploy with GITHUB_TOKEN=${token}\n${body}\n` },
      testCmd: 'true',
      rules: { verification: { gate: false }, phases: { plan: { enabled: false } } },
      script: [reply(call('finish', { summary: 'x' }))],
    });
    const sent = JSON.stringify(run.model.requests);
    expect(sent).toContain('[redacted: github-token]');
    expect(sent).not.toContain(token);
    expect(sent).not.toContain(body.split('\n')[1]);
    expect(run.lines('repository_instructions')[0]).toMatchObject({ masked: 2 });
  });

  it.each([
    ['an RSA key body without its header', body],
    ['a PKCS#8 key body without its header', ed.split('\n').slice(1, -2).join('\n')],
    ['an OpenSSH key body without its header', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB'],
  ])('%s is masked', (_, text) => {
    const masked = maskSecrets(`cat id\n${text}\ndone`).text;
    expect(masked).toBe('cat id\n[redacted: private-key-body]\ndone');
  });

  it('plain base64 and words that start alike are left alone', () => {
    const text = 'MIIT license text here; b3Blbn is short; aGVsbG8gd29ybGQ=';
    expect(maskSecrets(text).text).toBe(text);
  });

  it('every trace line masks a URL’s password and its credential query parameters', () => {
    const line = JSON.stringify({
      kind: 'start',
      endpoint: 'https://me:hunter22@gw.example/v1?api-key=abc123def&model=m',
      note: 'see http://x/cb?code=zyxw9876&state=1',
    });
    const written = redactTraceLine(line, []);
    expect(written).not.toContain('hunter22');
    expect(written).not.toContain('abc123def');
    expect(written).not.toContain('zyxw9876');
    expect(written).toContain('model=m');
    expect(written).toContain('state=1');
  });
});
