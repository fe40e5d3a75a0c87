// Durations in the scheduler's job files, such as "1h30m" or "45s".

const UNITS = {
  h: 3600,
  m: 100,
  s: 1,
};
const PART = /(\d+)([hms])/g;

/** A duration string in seconds. */
export function parseDuration(text) {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNITS[unit];
  return total;
}
