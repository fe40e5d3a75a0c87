import { TRACE_KINDS } from '../server/page-data.js';

/** One trace line as the page holds it; lines of unknown shape are kept and shown raw. */
export interface Entry {
  /** Position in the timeline (0-based), also the scrubber's value. */
  index: number;
  kind: string;
  /** False for kinds this version does not write (shown raw). */
  known: boolean;
  /** Seconds since the epoch, when the line has a time. */
  t: number | null;
  data: Record<string, unknown>;
}

const KNOWN = new Set<string>(TRACE_KINDS);

/**
 * Reads any JSON value as an entry, never throwing: a line that is not an
 * object, or has no kind, becomes an unknown entry holding the value.
 *
 * @example toEntry({ i: 0, t: 1.5, kind: 'start' }, 0).kind // 'start'
 */
export function toEntry(raw: unknown, index: number): Entry {
  const data = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { value: raw };
  const kind = typeof data.kind === 'string' && data.kind !== '' ? data.kind : '(no kind)';
  const t = typeof data.t === 'number' && Number.isFinite(data.t) ? data.t : null;
  return { index, kind, known: KNOWN.has(kind), t, data };
}

/** A string field, or '' when it is missing or not a string. */
export function text(data: Record<string, unknown>, key: string): string {
  const value = data[key];
  return typeof value === 'string' ? value : '';
}

/** A finite number field, or null. */
export function num(data: Record<string, unknown>, key: string): number | null {
  const value = data[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** An object field, or an empty object. */
export function obj(data: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = data[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
