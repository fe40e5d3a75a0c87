/** Number and text formatting for labels, gauges and rows. */

/**
 * A count with thousands separators, or abbreviated past 100k.
 *
 * @example count(7179) // '7,179'
 */
export function count(value: number): string {
  if (Math.abs(value) >= 100_000) return `${(value / 1000).toFixed(0)}k`;
  return Math.round(value).toLocaleString('en-US');
}

/**
 * A duration in seconds as `42.1 s`, `3:05` or `1:02:03`.
 *
 * @example duration(185) // '3:05'
 */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * A time spent and its budget in one format, the budget's: `0:11 / 15:00`,
 * `1:02:03 / 2:00:00`; under 10 s the spent time keeps a tenth (`0:01.4`).
 *
 * @example clockPair(11, 900) // ['0:11', '15:00']
 */
export function clockPair(spent: number | null, budget: number): [string, string] {
  const hours = budget >= 3600 || (spent ?? 0) >= 3600;
  const clock = (seconds: number, tenths: boolean) => {
    const whole = Math.floor(seconds);
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const s = String(whole % 60).padStart(2, '0') + (tenths ? `.${Math.floor((seconds - whole) * 10)}` : '');
    return hours ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
  };
  return [spent === null ? '—' : clock(spent, spent < 10), clock(budget, false)];
}

/** Milliseconds as `840 ms` or `2.4 s`. */
export function millis(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** One line of at most `max` characters, whitespace collapsed. */
export function clip(value: string, max: number): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A value as short one-line JSON. */
export function brief(value: unknown, max = 160): string {
  let json: string;
  try {
    json = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    json = String(value);
  }
  return clip(json, max);
}
