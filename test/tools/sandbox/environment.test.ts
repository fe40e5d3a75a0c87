import { describe, expect, it } from 'vitest';
import { buildCommandEnv, DEFAULT_ENV_ALLOW } from '../../../tools/sandbox/plan/environment.js';

const source = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  LC_ALL: 'C.UTF-8',
  OPENAI_API_KEY: 'sk-1',
  AWS_SECRET_ACCESS_KEY: 'aws',
  NODE_OPTIONS: '--max-old-space-size=4096',
  NODE_AUTH_TOKEN: 'npm',
  PYTHONPATH: 'src',
  GITHUB_TOKEN: 'gh',
  HF_TOKEN: 'hf',
  CARGO_HOME: '/cargo',
  CARGO_REGISTRY_TOKEN: 'crates',
};

describe('buildCommandEnv', () => {
  it('passes the defaults and drops everything else', () => {
    expect(buildCommandEnv(source)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      LC_ALL: 'C.UTF-8',
      NODE_OPTIONS: '--max-old-space-size=4096',
      PYTHONPATH: 'src',
    });
  });

  it('never lets a glob pass a secret-looking name, but honours an exact opt-in', () => {
    const env = buildCommandEnv(source, ['CARGO_*', 'HF_TOKEN', '*']);
    expect(env).toMatchObject({ CARGO_HOME: '/cargo', HF_TOKEN: 'hf' });
    for (const secret of ['OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'NODE_AUTH_TOKEN', 'GITHUB_TOKEN', 'CARGO_REGISTRY_TOKEN']) {
      expect(env).not.toHaveProperty(secret);
    }
  });

  it('keeps the default list free of credential names', () => {
    expect(DEFAULT_ENV_ALLOW.filter((name) => /KEY|TOKEN|SECRET|PASSWORD/i.test(name))).toEqual([]);
  });
});
