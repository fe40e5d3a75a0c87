/**
 * The known name nearest to a misspelling: within two edits, or the same
 * name in another case. `null` when nothing is that close.
 *
 * @example closestName('todoWriten', ['todoWritten', 'editMade']) // 'todoWritten'
 */
export function closestName(name: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? null;
}

/** ` (did you mean "x"?)` for a misspelling, or an empty string. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = closestName(name, known);
  return near ? ` (did you mean "${near}"?)` : '';
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
