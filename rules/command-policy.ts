/** How `run` executes commands; parsed from the rules, fixed for a whole run. */
export interface CommandPolicy {
  /** Extra deny patterns (regex source strings) on top of the built-in list. */
  deny: string[];
  /** `auto` uses bubblewrap when it is installed and says so when it is not. */
  sandbox: 'auto' | 'bwrap' | 'none';
  /** Network inside the sandbox; off by default. */
  network: boolean;
  /** Environment variable names (or `PREFIX_*` globs) passed through to commands. */
  envAllow: string[];
  /** Seconds before a command's whole process group is killed. */
  timeoutSeconds: number;
  /** `permissions.readable`: host paths (`/…`, `~/…`) shown read-only to commands, workspace patterns un-hidden (`.env.test`). */
  readable?: string[];
  /** `permissions.hidden`: host paths and workspace patterns (gitignore syntax) hidden from commands and file tools. */
  hidden?: string[];
  /** `permissions.limits`: memory a process may allocate and processes the sandbox may hold (defaults: tools/sandbox/limits/sandbox-limits.ts). */
  limits?: LimitRules;
}

/** `permissions.limits` as the rules give it: either may be left out. */
export interface LimitRules {
  memoryMiB?: number;
  processes?: number;
}
