import { type ParseArgsConfig, parseArgs } from 'node:util';
import { didYouMean, UsageError } from 'rein/lib';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommand {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `node:util` parseArgs with rein's error style: a usage error names the command and the problem. */
export function parseCommand(command: string, argv: string[], options: FlagSpec): ParsedCommand {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: parsed.values as ParsedCommand['values'], positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    // An unknown option gets the nearest one this command takes.
    const unknown = /^Unknown option '(--?[\w-]+)'/.exec(message)?.[1];
    const hint = unknown?.startsWith('--')
      ? didYouMean(
          unknown,
          Object.keys(options).map((name) => `--${name}`),
        )
      : '';
    throw new UsageError(`${command}: ${message}${hint}`);
  }
}

/** A string flag's value, or undefined. */
export function stringFlag(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string flag's values. */
export function listFlag(parsed: ParsedCommand, name: string): string[] {
  const value = parsed.values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/** A numeric flag, or undefined when absent; a clear error when it is not a positive number. */
export function numberFlag(command: string, parsed: ParsedCommand, name: string, { integer = false } = {}): number | undefined {
  const value = stringFlag(parsed, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new UsageError(`${command}: --${name} expects a positive ${integer ? 'whole ' : ''}number, got "${value}"`);
  }
  return number;
}
