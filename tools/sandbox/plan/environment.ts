/**
 * Variables every command gets when they are set in the harness's own
 * environment. Enough for shells, compilers, Python and Node toolchains and
 * readable messages; nothing that usually carries credentials.
 * `NAME_*` (or any `PREFIX*`) is a glob over variable names.
 */
export const DEFAULT_ENV_ALLOW: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  // Shells read it at start-up; on some machines a shell started without it is much slower to start.
  'SHLVL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
  'NO_COLOR',
  'PYTHON*',
  'PYENV_*',
  'VIRTUAL_ENV',
  'NODE_*',
];

/**
 * Names that look like credentials. A glob never passes them (so `NODE_*`
 * does not leak `NODE_AUTH_TOKEN`); only an exact, deliberate entry such as
 * `HF_TOKEN` in the rules does.
 */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * Builds the environment for agent commands from an allow-list, so `env` or
 * `printenv` inside a command cannot reveal `OPENAI_API_KEY` or other secrets
 * of the harness. `allow` extends `DEFAULT_ENV_ALLOW`; entries are exact names
 * or globs ending in `*`.
 *
 * @example buildCommandEnv(process.env, ['CARGO_*']) // { PATH: '...', HOME: '...', CARGO_HOME: '...' }
 */
export function buildCommandEnv(source: NodeJS.ProcessEnv, allow: readonly string[] = []): Record<string, string> {
  const entries = [...DEFAULT_ENV_ALLOW, ...allow];
  const exact = new Set(entries.filter((entry) => !entry.endsWith('*')));
  const prefixes = entries.filter((entry) => entry.endsWith('*')).map((entry) => entry.slice(0, -1));
  const env: Record<string, string> = {};
  for (const name of Object.keys(source).sort()) {
    const value = source[name];
    if (value === undefined) continue;
    const byGlob = !SECRET_NAME.test(name) && prefixes.some((prefix) => name.startsWith(prefix));
    if (exact.has(name) || byGlob) env[name] = value;
  }
  return env;
}
