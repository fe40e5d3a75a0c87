import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { CommandPolicy, ObservationLimits, ToolContext } from '../../tools/types.js';

const created: string[] = [];

afterEach(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh, realpath'd temp directory, removed after the test. */
export function makeTempDir(prefix = 'rein-test-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Writes files (relative path → content) below root, creating directories. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

export const defaultLimits: ObservationLimits = { outputChars: 6000, viewLines: 100, maxHits: 50 };
export const defaultPolicy: CommandPolicy = { deny: [], sandbox: 'none', network: false, envAllow: [], timeoutSeconds: 30 };

/** A tool context on `root` with the seed's limits, overridable per test. */
export function makeContext(
  root: string,
  overrides: { policy?: Partial<CommandPolicy>; limits?: Partial<ObservationLimits>; signal?: AbortSignal; protectedFiles?: string[] } = {},
): ToolContext {
  return {
    root,
    signal: overrides.signal ?? new AbortController().signal,
    limits: { ...defaultLimits, ...overrides.limits },
    policy: { ...defaultPolicy, ...overrides.policy },
    ...(overrides.protectedFiles ? { protectedFiles: overrides.protectedFiles } : {}),
  };
}
