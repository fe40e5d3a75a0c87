import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { makeTempDir, removeTempDirs } from '../../testing/temp-dir.js';
import type { CommandPolicy, ObservationLimits, ToolContext } from '../../tools/types.js';

// Every temp directory a test made (here or through runScripted) goes after the test.
afterEach(removeTempDirs);

export { makeTempDir };

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
