import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RULES_FILE_NAMES, STATE_DIR_NAME } from '../lib/harness-files.js';
import type { CommandPolicy } from './types.js';

/** How commands actually run, decided once from the policy and the machine. */
export type SandboxMode =
  | { kind: 'bwrap'; bwrap: string; network: boolean }
  | { kind: 'none'; reason: string }
  | { kind: 'unavailable'; reason: string };

type Probe = { bwrap: string } | { problem: string };

/** Keyed by PATH, so a test or CLI that changes PATH sees a fresh lookup. */
const probes = new Map<string, Probe>();

/**
 * The mode in effect for a policy: `auto` uses bubblewrap when it is on PATH
 * and can create namespaces here, else runs unsandboxed; `bwrap` without a
 * working bubblewrap is `unavailable` (commands are refused, not run bare).
 *
 * @example resolveSandbox({ sandbox: 'auto', network: false }) // { kind: 'bwrap', bwrap: '/usr/bin/bwrap', network: false }
 */
export function resolveSandbox(policy: Pick<CommandPolicy, 'sandbox' | 'network'>): SandboxMode {
  if (policy.sandbox === 'none') return { kind: 'none', reason: 'the rules set sandbox: none' };
  const probe = probeBwrap();
  if ('bwrap' in probe) return { kind: 'bwrap', bwrap: probe.bwrap, network: policy.network };
  if (policy.sandbox === 'bwrap') return { kind: 'unavailable', reason: `the rules require sandbox: bwrap, but ${probe.problem}` };
  return { kind: 'none', reason: probe.problem };
}

/**
 * One line for the CLI and the trace, e.g.
 * `commands run unsandboxed (bubblewrap (bwrap) was not found on PATH)`.
 */
export function describeSandbox(mode: SandboxMode): string {
  if (mode.kind === 'bwrap') {
    return `commands run in a bubblewrap sandbox (read-only system, writable workspace, private /tmp, network ${mode.network ? 'on' : 'off'})`;
  }
  if (mode.kind === 'none') return `commands run unsandboxed (${mode.reason})`;
  return `commands cannot run: ${mode.reason}`;
}

/**
 * The bubblewrap argv that runs `inner` with the whole file system read-only,
 * the workspace writable at its own path, a private `/tmp`, fresh `/dev` and
 * `/proc`, every namespace unshared (network too unless allowed), and the
 * sandbox dying with its parent. `--new-session` stops a command from pushing
 * keystrokes into the harness's terminal; killing bwrap's process group still
 * ends everything, because the sandbox's PID namespace dies with bwrap.
 *
 * `readable` lists more folders to show read-only (an eval grader's hidden tests).
 *
 * @example spawn(...buildSandboxArgv('/usr/bin/bwrap', '/work/repo', false, ['bash', '-c', 'make']))
 */
export function buildSandboxArgv(bwrap: string, root: string, network: boolean, inner: readonly string[], readable: readonly string[] = [], protectedFiles: readonly string[] = []): string[] {
  return [
    bwrap,
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    // Extra folders visible read-only, bound after the private /tmp so ones below /tmp show too.
    ...readable.flatMap((dir) => ['--ro-bind', dir, dir]),
    // After the /tmp tmpfs, so a workspace below /tmp is still the real one.
    '--bind', root, root,
    // The harness's own state (progress, saved runs) and its rules files stay out of the agent's reach.
    ...[...[STATE_DIR_NAME, ...RULES_FILE_NAMES].map((name) => path.join(root, name)), ...protectedFiles].flatMap((file) => ['--ro-bind-try', file, file]),
    '--chdir', root,
    '--unshare-all',
    // Root inside the sandbox keeps no capabilities: it cannot remount / read-write or undo the binds above.
    '--cap-drop', 'ALL',
    ...(network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--',
    ...inner,
  ];
}

/** Finds an executable on a PATH string, like `which`. */
export function findOnPath(name: string, pathValue: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

function probeBwrap(): Probe {
  const key = process.env.PATH ?? '';
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = runProbe();
    probes.set(key, probe);
  }
  return probe;
}

/** Being installed is not enough: containers often forbid the namespaces bwrap needs. */
function runProbe(): Probe {
  const bwrap = findOnPath('bwrap');
  if (bwrap === null) return { problem: 'bubblewrap (bwrap) was not found on PATH' };
  const argv = buildSandboxArgv(bwrap, process.cwd(), false, ['true']);
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
  if (result.status === 0) return { bwrap };
  const detail = (result.stderr || result.error?.message || `exit ${result.status}`).trim().slice(0, 300);
  return { problem: `bubblewrap at ${bwrap} cannot create a sandbox here: ${detail}` };
}
