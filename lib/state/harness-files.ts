/** Rules file names looked up in a workspace when no `--config` is given. */
export const RULES_FILE_NAMES = [
  'rein.config.json',
  'rein.config.yaml',
  'rein.config.yml',
  'rein.config.ts',
  'rein.config.mts',
  'rein.config.mjs',
  'rein.config.js',
] as const;

/** rein's state folder inside a workspace (progress, saved runs). */
export const WORKSPACE_REIN_DIR = '.rein';

/**
 * Whether a workspace-relative path is rein's own: its state folder, or a
 * rules file at the workspace root. The agent must not change these: a rules
 * module is code the next `rein run` imports, and saved runs steer `rein resume`.
 *
 * @example isHarnessFile('rein.config.mjs') // true
 */
function isHarnessFile(relative: string): boolean {
  const normalized = relative.split('\\').join('/').replace(/^\.\//, '');
  return normalized === WORKSPACE_REIN_DIR || normalized.startsWith(`${WORKSPACE_REIN_DIR}/`) || (RULES_FILE_NAMES as readonly string[]).includes(normalized);
}

/** Files at the workspace root that another program on the host reads as configuration to run: rein's own MCP servers. */
export const HOST_CONFIG_FILES = ['.mcp.json'] as const;

/**
 * Why the agent may not write a workspace-relative path, or null: rein's own files, a `.git` at any depth (git runs
 * what its configuration, hooks and attributes name, at the user's next git command), and the configuration rein
 * starts programs from (`.mcp.json`). The sandbox shows all of these read-only; rein's file tools refuse them too.
 *
 * @example hostTrustedReason('vendor/x/.git/config') // "is in a .git, which is git's: …"
 */
export function hostTrustedReason(relative: string): string | null {
  const normalized = relative.split('\\').join('/').replace(/^\.\//, '');
  if (normalized.split('/').some((part) => part.toLowerCase() === '.git'))
    return "is in a .git, which is git's: the host runs what its configuration, hooks and attributes name at the next git command";
  if (isHarnessFile(normalized)) return 'belongs to rein (its state or rules file)';
  if ((HOST_CONFIG_FILES as readonly string[]).includes(normalized)) return 'is the MCP configuration: rein starts the servers it names';
  return null;
}
