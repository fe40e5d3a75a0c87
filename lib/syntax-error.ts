/**
 * Where a JSON or YAML document fails to parse, as people fix it: line and
 * column, the offending line, and a caret under the spot.
 *
 * @example jsonSyntaxError('{\n  "a" 1\n}', error) // 'line 2, column 7: Unexpected number\n    "a" 1\n        ^'
 */
export function jsonSyntaxError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : text.length;
  const what = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
  return pointAt(text, offset, what);
}

/** The same for a YAML error from the `yaml` package (which knows line and column). */
export function yamlSyntaxError(text: string, error: { message: string; linePos?: Array<{ line: number; col: number }> }): string {
  const where = error.linePos?.[0];
  const what = error.message.split(' at line ')[0]!;
  if (!where) return what;
  const lines = text.split('\n');
  const offset = lines.slice(0, where.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + where.col - 1;
  return pointAt(text, offset, what);
}

function pointAt(text: string, offset: number, what: string): string {
  const before = text.slice(0, Math.min(offset, text.length));
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const source = text.split('\n')[line - 1] ?? '';
  return `line ${line}, column ${column}: ${what}\n    ${source}\n    ${' '.repeat(Math.max(0, column - 1))}^`;
}
