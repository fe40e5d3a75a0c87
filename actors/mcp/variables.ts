/** Why a server could not be configured: a missing variable, a bad header. Reported as the server's failure. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

/**
 * `${NAME}` (or `${NAME:-fallback}`) in each value replaced from `env`, the
 * convention of `.mcp.json` files. A variable that is not set and has no
 * fallback is an error naming the field, never an empty token sent silently.
 *
 * @example expandVariables({ Authorization: 'Bearer ${DOCS_TOKEN}' }, process.env, 'headers')
 */
export function expandVariables(values: Record<string, string>, env: NodeJS.ProcessEnv, where: string): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expandOne(value, env, `${where}.${key}`)]));
}

function expandOne(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    throw new McpConfigError(`${where}: \${${name}} is not set in rein's environment`);
  });
}
