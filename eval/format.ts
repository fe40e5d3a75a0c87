/** Number formats shared by the terminal table, summary.md and report.html. */

export function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

export function usd(value: number): string {
  const digits = Math.abs(value) >= 1 ? 2 : 4;
  return `${value < 0 ? '-' : ''}$${Math.abs(value).toFixed(digits)}`;
}

export function signedUsd(value: number): string {
  return value > 0 ? `+${usd(value)}` : usd(value);
}

export function fixed(value: number, digits = 1): string {
  return value.toFixed(digits);
}

export function signed(value: number, digits = 1): string {
  const text = value.toFixed(digits);
  return value > 0 ? `+${text}` : text;
}

export function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function signedWhole(value: number): string {
  const text = whole(value);
  return value > 0 ? `+${text}` : text;
}

/** `p = 0.0078`, with a star when below 0.05. */
export function pText(p: number): string {
  return `${p.toFixed(4)}${p < 0.05 ? ' *' : ''}`;
}

/** Left-aligned text columns for terminals: pads every cell to its column's width. */
export function columns(rows: readonly (readonly string[])[], gap = 2): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  return rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]! + gap))).join('')).join('\n');
}

/** A markdown table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const escapeCell = (cell: string) => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [header, header.map(() => '---'), ...rows].map((row) => `| ${row.map(escapeCell).join(' | ')} |`).join('\n');
}
