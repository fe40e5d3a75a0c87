import type { Attributes, AttributeValue, HrTime } from '@opentelemetry/api';

/**
 * Typed reads of trace-line fields. A trace may come from another rein
 * version or be hand-edited: a field of the wrong type is treated as absent.
 */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Attributes without the undefined ones (the SDK warns on them). */
export function defined(attributes: Record<string, AttributeValue | undefined>): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}

/**
 * A trace time (seconds since the epoch, millisecond precision) as an OTel HrTime.
 * Not a number of milliseconds: the SDK reads a number below the process's start time
 * as an offset from it, which would misplace every span of an old run.
 */
export function hrTime(seconds: number): HrTime {
  const millis = Math.round(seconds * 1000);
  return [Math.floor(millis / 1000), (millis % 1000) * 1_000_000];
}

/** The phase of a state label: `build.think` → `build`; final states are their own phase (`done`). */
export function phaseOf(label: string): string {
  const dot = label.indexOf('.');
  return dot < 0 ? label : label.slice(0, dot);
}
