import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../lib/secrets/secret-scan.js';

// Built from parts so no complete token sits in the repository for scanners to flag.
const t = (...parts: string[]) => parts.join('');
const A36 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

const samples: Array<[kind: string, secret: string]> = [
  ['aws-access-key-id', t('AKIA', 'Q3EXAMPLE7RT2XZ4')],
  ['github-token', t('ghp_', A36)],
  ['github-token', t('gho_', A36)],
  ['github-fine-grained-token', t('github_pat_', '11ABCDEFG0', A36, '_', A36)],
  ['gitlab-token', t('glpat-', 'xY9zT3mK8pQ2wE5rV7nB')],
  ['openai-key', t('sk-proj-', A36, 'T3BlbkFJ', A36)],
  ['anthropic-key', t('sk-ant-api03-', A36, A36, A36)],
  ['gcp-api-key', t('AIza', 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q')],
  ['slack-token', t('xoxb-', '123456789012-1234567890123-', 'abcdefghijABCDEFGHIJabcd')],
  ['npm-token', t('npm_', A36)],
  ['huggingface-token', t('hf_', A36)],
  ['stripe-key', t('sk_live_', '51Habcdefghijklmnopqrstuv')],
  ['pypi-token', t('pypi-AgE', 'IcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz')],
];

describe('maskSecrets', () => {
  it.each(samples)('masks a %s and says where it was, never what', (kind, secret) => {
    const text = `line one\n  export TOKEN=${secret} # set by CI\n`;
    const { text: masked, findings } = maskSecrets(text);
    expect(masked).toBe(`line one\n  export TOKEN=[redacted: ${kind}] # set by CI\n`);
    expect(findings).toEqual([{ kind, line: 2, column: 16 }]);
    expect(JSON.stringify(findings)).not.toContain(secret.slice(4, 12));
  });

  it('masks a whole private key block, also one cut short by truncation or escaped inside JSON', () => {
    const body = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDh9V3p0b2ZxZx2mNqr';
    const block = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`;
    expect(maskSecrets(`key:\n${block}\ndone`)).toEqual({
      text: 'key:\n[redacted: private-key]\ndone',
      findings: [{ kind: 'private-key', line: 2, column: 1 }],
    });
    const cut = maskSecrets(`-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7x\nQ3e9\n...[4000 chars omitted]...\nrest`);
    expect(cut.text).not.toMatch(/MIIEpAIBAAKCAQEA7x|Q3e9/);
    const json = `{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkq\\n-----END PRIVATE KEY-----\\n", "client_email": "x@y"}`;
    expect(maskSecrets(json).text).toBe('{"private_key": "[redacted: private-key]\\n", "client_email": "x@y"}');
  });

  it('masks the value of an AWS secret key, a password in a URL and an .npmrc token, keeping their labels', () => {
    const text = t(
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzKEYx\n',
      'postgres://app:s3cr3t-pw@db:5432/app\n',
      '//registry.npmjs.org/:_authToken=abcdef123456\n',
    );
    expect(maskSecrets(text).text).toBe(
      'aws_secret_access_key = [redacted: aws-secret-access-key]\npostgres://app:[redacted: url-credentials]@db:5432/app\n//registry.npmjs.org/:_authToken=[redacted: npm-auth-token]\n',
    );
  });

  it('masks the endpoint key, its head and its tail, as [redacted]', () => {
    const key = 'sk-endpoint-0123456789abcdefXYZ';
    const { text, findings } = maskSecrets(`full ${key}\nhead ${key.slice(0, 12)}…\ntail …${key.slice(-8)}`, [key]);
    expect(text).toBe('full [redacted]\nhead [redacted]…\ntail …[redacted]');
    expect(findings.map((finding) => finding.kind)).toEqual(['endpoint-key', 'endpoint-key', 'endpoint-key']);
  });

  it('leaves ordinary code, hashes and ids alone', () => {
    const code = [
      'const sha = "3f786850e387550fdab836ed7e6dc881de23001b";',
      'uuid = 123e4567-e89b-12d3-a456-426614174000',
      'task-queue-worker-name-that-is-long sk-learn scikit-learn',
      'https://example.com/path?x=1 git@github.com:org/repo.git',
      'AKIAlower is not a key; ghp_short neither',
    ].join('\n');
    expect(maskSecrets(code)).toEqual({ text: code, findings: [] });
  });
});
