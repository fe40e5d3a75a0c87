import { UsageError } from 'rein/lib';

/** Keep serving after the run unless `--viz-exit` says not to or a CI environment would wait forever. */
export function keepsServing(exitFlag: boolean, env: NodeJS.ProcessEnv): boolean {
  return !exitFlag && !env.CI;
}

/**
 * A port flag: a whole number from 0 (any free port) to 65535.
 *
 * @example parsePort('rein demo', '--viz-port', '8080') // 8080
 */
export function parsePort(command: string, flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${command}: ${flag} expects a port number from 0 to 65535, got "${value}"`);
  return port;
}
