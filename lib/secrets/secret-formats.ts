/** The first line of a PEM private key block (PKCS#1, PKCS#8, OpenSSH, encrypted, PGP). Its body is found by `maskSecrets`. */
export const PRIVATE_KEY_HEADER = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;

/**
 * Well-known secret formats, as data: a kind (what the trace says was masked)
 * and a pattern. Patterns are anchored on the fixed prefixes providers put in
 * their tokens, so ordinary code and hashes are not masked by accident; the
 * one context-dependent entry (an AWS secret key has no prefix) needs the name
 * it is assigned to.
 *
 * Every pattern is global and sticky-free; `secret` is the capture group that
 * holds the value when the match also covers a label (group 0 otherwise).
 */
export interface SecretFormat {
  kind: string;
  pattern: RegExp;
  /** The capture group holding the value; 0 = the whole match. */
  group?: number;
}

const BASE64ISH = '[A-Za-z0-9+/=_\\-]';

export const SECRET_FORMATS: readonly SecretFormat[] = [
  { kind: 'putty-private-key', pattern: /PuTTY-User-Key-File-\d+:[\s\S]*?Private-MAC: [0-9a-f]+/g },
  { kind: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  {
    kind: 'aws-secret-access-key',
    pattern: /(?:aws_?secret_?access_?key|secretaccesskey)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 1,
  },
  { kind: 'gcp-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'gcp-oauth-token', pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  { kind: 'azure-storage-key', pattern: /AccountKey=([A-Za-z0-9+/]{86,88}={0,2})/g, group: 1 },
  { kind: 'azure-client-secret', pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  { kind: 'github-token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  { kind: 'github-fine-grained-token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { kind: 'gitlab-token', pattern: /\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|soat|cbt)-[0-9A-Za-z_-]{20,}/g },
  { kind: 'bitbucket-token', pattern: /\bATBB[A-Za-z0-9_=.-]{32,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-key', pattern: /\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}/g },
  // Other providers' keys in the sk- shape (DeepSeek, Moonshot, OpenRouter's sk-or-…): long enough not to be a word.
  { kind: 'provider-key', pattern: /\bsk-(?:or-v1-)?[A-Za-z0-9][A-Za-z0-9_-]{31,}/g },
  { kind: 'huggingface-token', pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'groq-key', pattern: /\bgsk_[A-Za-z0-9]{40,}\b/g },
  { kind: 'xai-key', pattern: /\bxai-[A-Za-z0-9]{40,}\b/g },
  { kind: 'replicate-token', pattern: /\br8_[A-Za-z0-9]{37}\b/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[0-9A-Za-z-]{10,}/g },
  { kind: 'slack-webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b/g },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // An .npmrc line: the token may be any opaque string.
  { kind: 'npm-auth-token', pattern: /:_authToken=([^\s'"]{8,})/g, group: 1 },
  { kind: 'pypi-token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'docker-hub-token', pattern: /\bdckr_pat_[A-Za-z0-9_-]{27,}/g },
  { kind: 'sendgrid-key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'twilio-key', pattern: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'shopify-token', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { kind: 'digitalocean-token', pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: 'linear-key', pattern: /\blin_api_[A-Za-z0-9]{40}\b/g },
  { kind: 'vault-token', pattern: /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g },
  { kind: 'jwt', pattern: new RegExp(`\\beyJ${BASE64ISH}{10,}\\.eyJ${BASE64ISH}{10,}\\.${BASE64ISH}{10,}`, 'g') },
  // A key's body printed without its PEM header line: PKCS#1/PKCS#8 and SEC1 EC keys (DER in base64), OpenSSH keys.
  {
    kind: 'private-key-body',
    // The DER openings of private keys (PKCS#1 and PKCS#8 RSA, SEC1 and PKCS#8 EC, Ed25519) and of OpenSSH's format;
    // further lines are taken while they look like base64 lines (a short last one needs its `=` padding).
    pattern:
      /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]|MIG[A-Za-z0-9+/]{2}AgE|MH[A-Za-z0-9+/]CAQEE|MC4CAQAw|MFECAQEw|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{28,}(?:\r?\n(?:[A-Za-z0-9+/]{20,}={0,2}|[A-Za-z0-9+/]{1,19}={1,2}))*/g,
  },
  // A credential in a URL's query (signed links, API keys, OAuth tokens).
  {
    kind: 'url-query-token',
    pattern:
      /[?&](?:access_token|refresh_token|token|api[_-]?key|apikey|client_secret|password|sig|signature|x-amz-signature|x-amz-security-token)=([^&\s#'"]{6,})/gi,
    group: 1,
  },
  // user:password@host in a URL (database connection strings, git remotes with a token).
  { kind: 'url-credentials', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]+:([^\s@/'"]{3,})@/gi, group: 1 },
];
