// Small statistics helpers used by the report generator.

/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  let total = 0;
  for (const value of values) total += value;
  return total / (values.length - 1);
}

/** The middle value; for an even count, the mean of the two middle values. */
export function median(values) {
  const sorted = [...values].sort();
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
