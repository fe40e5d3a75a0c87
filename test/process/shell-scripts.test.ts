import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../lib/package-root.js';
import { shellScript } from '../../process/shell-scripts.js';

const dir = join(packageRoot(), 'process');
const scripts = readdirSync(dir).filter((name) => name.endsWith('.sh'));

describe('the process layer’s shell programs', () => {
  it('are real files the harness loads', () => {
    expect(scripts.sort()).toEqual(['supervisor.sh', 'watchdog.sh']);
    for (const name of scripts) expect(shellScript(name as 'supervisor.sh')).toContain('#!/usr/bin/env bash');
  });

  it.each(scripts)('%s parses (bash -n)', (name) => {
    const result = spawnSync('bash', ['-n', join(dir, name)], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.each(scripts)('%s passes shellcheck', (name) => {
    const result = spawnSync('shellcheck', ['--shell=bash', '--severity=style', join(dir, name)], { encoding: 'utf8' });
    if (result.error) throw new Error(`shellcheck is needed for this test (Debian package shellcheck): ${result.error.message}`);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });
});
