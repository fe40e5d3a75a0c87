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
export function isHarnessFile(relative: string): boolean {
  const normalized = relative.split('\\').join('/').replace(/^\.\//, '');
  return normalized === WORKSPACE_REIN_DIR || normalized.startsWith(`${WORKSPACE_REIN_DIR}/`) || (RULES_FILE_NAMES as readonly string[]).includes(normalized);
}
