import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../lib/package-root.js';
import { SHELL_SCRIPTS, shellScript } from '../../../tools/sandbox/shell-scripts.js';

const sandboxDir = join(packageRoot(), 'tools', 'sandbox');
/** Every .sh file under tools/sandbox/, by path from the package root. */
const found = (readdirSync(sandboxDir, { recursive: true }) as string[]).filter((name) => name.endsWith('.sh')).map((name) => `tools/sandbox/${name}`);
const scripts = Object.values(SHELL_SCRIPTS).map((path) => join(packageRoot(), path));

describe('the sandbox’s shell programs', () => {
  it('are real files the harness loads, and every one is known', () => {
    expect(found.sort()).toEqual(Object.values(SHELL_SCRIPTS).sort());
    for (const name of Object.keys(SHELL_SCRIPTS)) expect(shellScript(name as keyof typeof SHELL_SCRIPTS)).toContain('#!/usr/bin/env bash');
  });

  it.each(scripts)('%s parses (bash -n)', (name) => {
    const result = spawnSync('bash', ['-n', name], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.each(scripts)('%s passes shellcheck', (name) => {
    const result = spawnSync('shellcheck', ['--shell=bash', '--severity=style', name], { encoding: 'utf8' });
    if (result.error) throw new Error(`shellcheck is needed for this test (Debian package shellcheck): ${result.error.message}`);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });
});
