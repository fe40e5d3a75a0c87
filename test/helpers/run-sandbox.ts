import { afterEach } from 'vitest';
import { createRunSandbox, type RunSandbox, type RunSandboxOptions } from '../../tools/sandbox/run-sandbox.js';
import type { CommandPolicy, ToolContext } from '../../tools/types.js';
import { makeContext } from './workspace.js';

const open: RunSandbox[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.dispose()));
});

/** A run sandbox on `root`, disposed after the test. */
export function openRunSandbox(root: string, policy: Partial<CommandPolicy> = {}, options: Partial<RunSandboxOptions> = {}): RunSandbox {
  const sandbox = createRunSandbox({ root, policy: { ...makeContext(root).policy, ...policy }, ...options });
  open.push(sandbox);
  return sandbox;
}

/** A tool context whose `run` and `job` calls go to `sandbox`. */
export function sandboxContext(root: string, sandbox: RunSandbox, overrides: Parameters<typeof makeContext>[1] = {}): ToolContext {
  return { ...makeContext(root, overrides), sandbox };
}
