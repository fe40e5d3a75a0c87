import { compileRuleRegex } from '../lib/rule-regex.js';
import type { Rules } from '../rules/schema.js';

/**
 * One check the verification gate wants passing after the last edit. The
 * test command (`tests`) is the run's own (`--test-cmd`), so its `command`
 * is `null` in the rules and filled in from the run's input.
 */
export interface CheckRule {
  name: string;
  command: string | null;
  passExitCode: number;
  passPattern?: string;
  runs: number;
}

/** How verification runs are recognized and judged; the gate's and the facts' parameters. */
export interface VerificationParams {
  checks: CheckRule[];
  /** With a shell-only tool surface edits are commands: any other command resets the gate. */
  commandsCountAsEdits: boolean;
}

export const TESTS_CHECK = 'tests';

/** The verification parameters of a rules set: the test command first, then `verification.checks`. */
export function verificationOf(rules: Rules): VerificationParams {
  const { verification } = rules;
  return {
    checks: [
      {
        name: TESTS_CHECK,
        command: null,
        passExitCode: verification.passExitCode,
        runs: verification.runs,
        ...(verification.passPattern ? { passPattern: verification.passPattern } : {}),
      },
      ...verification.checks.map((check) => ({
        name: check.name,
        command: check.command,
        passExitCode: check.passExitCode,
        runs: check.runs,
        ...(check.passPattern ? { passPattern: check.passPattern } : {}),
      })),
    ],
    commandsCountAsEdits: verification.commandsCountAsEdits,
  };
}

/** Whitespace-normalized, so `npm  test` and `npm test` are the same command. */
const squeeze = (text: string) => text.trim().replace(/\s+/g, ' ');

/** True when `command` runs `checkCommand` (the seed's substring rule, whitespace-normalized): it counts as a verification run. */
export function isTestCommand(command: string, checkCommand: string): boolean {
  return checkCommand.trim().length > 0 && squeeze(command).includes(squeeze(checkCommand));
}

/**
 * True when `command` is the check command itself, optionally after
 * `cd <dir> &&` and with stderr merged: only such a run's pass satisfies the
 * gate. Under the substring rule alone `echo <cmd>`, `<cmd> || true` or
 * `<cmd> | tail` (tail's exit code) would pass without the tests passing.
 */
export function isExactTestCommand(command: string, checkCommand: string): boolean {
  if (checkCommand.trim().length === 0) return false;
  return (
    squeeze(command)
      .replace(/^cd \S+ && /, '')
      .replace(/ 2>&1$/, '') === squeeze(checkCommand)
  );
}

/** True when a run's exit code (and output, if a pattern is set) counts as a pass. */
export function isPass(exitCode: number | null, output: string, check: Pick<CheckRule, 'passExitCode' | 'passPattern'>): boolean {
  if (exitCode !== check.passExitCode) return false;
  return check.passPattern ? compileRuleRegex(check.passPattern, 'm').test(output) : true;
}

/** The check a command runs (the first that matches), with its command filled in. */
export function checkOf(command: string, params: VerificationParams, testCmd: string): (CheckRule & { command: string }) | null {
  for (const check of params.checks) {
    const checkCommand = check.command ?? testCmd;
    if (isTestCommand(command, checkCommand)) return { ...check, command: checkCommand };
  }
  return null;
}
