import v8 from 'node:v8';

let enabled = false;

/**
 * Turns on V8's linear-time regular-expression engine: `l`-flagged patterns run on it, and any other pattern that
 * it can run falls back to it once backtracking goes past V8's limit. A pattern from the model (a grep, a deny
 * pattern) then cannot hold the harness's event loop for minutes, deaf to signals and --max-seconds.
 */
export function enableLinearRegExp(): void {
  if (enabled) return;
  v8.setFlagsFromString('--enable-experimental-regexp-engine');
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  enabled = true;
}

/**
 * `pattern` compiled for the linear-time engine, or the reason it cannot be: back-references and lookarounds need
 * backtracking, which can take exponential time.
 *
 * @example compileLinear('^(a+)+$') // /^(a+)+$/l, matched in linear time
 */
export function compileLinear(pattern: string, flags = ''): RegExp | { error: string } {
  enableLinearRegExp();
  try {
    return new RegExp(pattern, `${flags}l`);
  } catch (error) {
    return { error: (error as Error).message };
  }
}
