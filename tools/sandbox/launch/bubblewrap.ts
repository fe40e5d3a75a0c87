import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { CommandPolicy } from '../../../rules/command-policy.js';
import { describeVisibility } from '../plan/describe-visibility.js';
import { findOnPath } from '../plan/find-on-path.js';
import { type Mount, SYSTEM_DIRS, type VisibilityPlan } from '../plan/visibility.js';

export { findOnPath } from '../plan/find-on-path.js';

/** How commands actually run, decided once from the policy and the machine. */
export type SandboxMode = { kind: 'bwrap'; bwrap: string; network: boolean } | { kind: 'none'; reason: string } | { kind: 'unavailable'; reason: string };

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
 * One line for the CLI and the trace. Sandboxed, it says what commands can
 * see (with a plan); unsandboxed, that they can read the whole disk and how to
 * refuse that, e.g. `commands run unsandboxed and can read the whole disk
 * (bubblewrap (bwrap) was not found on PATH); set permissions.sandbox: "bwrap" to require the sandbox`.
 */
export function describeSandbox(mode: SandboxMode, plan?: VisibilityPlan): string {
  if (mode.kind === 'bwrap') {
    const network = `network ${mode.network ? 'on' : 'off'}`;
    return plan
      ? `commands run in a bubblewrap sandbox (${network}); ${describeVisibility(plan)}`
      : `commands run in a bubblewrap sandbox (read-only system, writable workspace, private /tmp, ${network})`;
  }
  if (mode.kind === 'none')
    return `commands run unsandboxed and can read the whole disk (${mode.reason}); set permissions.sandbox: "bwrap" to require the sandbox`;
  return `commands cannot run: ${mode.reason}`;
}

/**
 * The bubblewrap argv that runs `inner` with only what `plan` shows: the
 * system read-only, the workspace writable, private /tmp and home, the
 * toolchains, caches and readable folders read-only, hidden paths masked;
 * fresh `/dev` and `/proc`, every namespace unshared (network too unless
 * allowed), no capabilities (root inside cannot remount or undo the binds),
 * and the sandbox dying with its parent. `--new-session` stops a command
 * from pushing keystrokes into the harness's terminal.
 *
 * @example spawn(...buildSandboxArgv('/usr/bin/bwrap', planVisibility({ root, policy }), ['bash', '-c', 'make']))
 */
export function buildSandboxArgv(bwrap: string, plan: VisibilityPlan, inner: readonly string[]): string[] {
  return [
    bwrap,
    '--dev',
    '/dev',
    // /dev is a tmpfs as large as half the machine's memory: its shared-memory folder gets the private folders' bound,
    // and the rest is made read-only (the device nodes still work), so nothing can be stored there unbounded.
    '--size',
    String(TMPFS_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    ...plan.mounts.flatMap(mountArgs),
    // The root is an empty tmpfs holding the mount points; nothing may be written beside them.
    '--remount-ro',
    '/',
    '--chdir',
    plan.root,
    '--unshare-all',
    // Root inside the sandbox keeps no capabilities: it cannot remount / read-write or undo the binds above.
    '--cap-drop',
    'ALL',
    ...(plan.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--',
    ...inner,
  ];
}

/** The size of each private folder (/tmp, /var/tmp, the home directory) in the sandbox. */
export const TMPFS_BYTES = 1024 * 1024 * 1024;

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'ro':
      return ['--ro-bind', mount.path, mount.path];
    case 'ro-try':
      return ['--ro-bind-try', mount.path, mount.path];
    case 'rw':
      return ['--bind', mount.path, mount.path];
    case 'bind':
      return [mount.readOnly ? '--ro-bind' : '--bind', mount.source, mount.path];
    case 'symlink':
      return ['--symlink', mount.target, mount.path];
    // Bounded: a tmpfs is memory, and unbounded it may take half of it each (/tmp, /var/tmp and home).
    case 'tmpfs':
      return ['--size', String(TMPFS_BYTES), '--tmpfs', mount.path];
    // A device node on a nodev mount: opening it fails with EACCES, so the file reads as unreadable, not as empty.
    case 'mask':
      return mount.directory ? ['--tmpfs', mount.path, '--remount-ro', mount.path] : ['--ro-bind', '/dev/null', mount.path];
  }
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
  // The features rein's sandboxes use, on a file system of only the system folders.
  const mounts = SYSTEM_DIRS.flatMap((dir): Mount[] => {
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) return [{ kind: 'symlink', path: dir, target: fs.readlinkSync(dir) }];
    return stat?.isDirectory() ? [{ kind: 'ro', path: dir }] : [];
  });
  const plan = { root: '/', network: false, mounts: [...mounts, { kind: 'tmpfs', path: '/tmp' } as const] } as VisibilityPlan;
  const argv = buildSandboxArgv(bwrap, plan, ['true']);
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
  if (result.status === 0) return { bwrap };
  const detail = (result.stderr || result.error?.message || `exit ${result.status}`).trim().slice(0, 300);
  return { problem: `bubblewrap at ${bwrap} cannot create a sandbox here: ${detail}` };
}
