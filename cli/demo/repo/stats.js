// Small statistics helpers used by the report generator.

/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  let total = 0;
  for (const value of values) total += value;
  return total / (values.length - 1);
}

/** Median: the middle value, or the mean of the two middle values. */
export function median(values) {
  const sorted = [...values].sort();
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle];
  return (sorted[middle - 1] + sorted[middle]) / 2;
}
