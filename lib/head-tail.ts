/**
 * Head-and-tail truncation (seed component 2): the beginning and the end of
 * a text with a visible marker for what was dropped between them. Used by the
 * tools for their observations and by the context manager for old results.
 */

/** Characters kept at each end for a given cap (the seed's `cap // 2 - 40`). */
export function keepPerSide(cap: number): number {
  return Math.max(Math.floor(cap / 2) - 40, 0);
}

/**
 * The seed's `head_tail`: texts up to `cap` chars pass unchanged; longer ones
 * keep `keepPerSide(cap)` chars at each end around an omission marker.
 *
 * One deliberate difference: when the cap is so small that nothing is kept
 * (cap < 82), Python's `text[-0:]` returns the whole text; here the tail is
 * empty, so the result really is short.
 *
 * @example headTail('a'.repeat(200), 100) // 'aaaaaaaaaa\n...[180 chars omitted]...\naaaaaaaaaa'
 */
export function headTail(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const keep = keepPerSide(cap);
  return joinWithMarker(text.slice(0, keep), text.length - 2 * keep, keep === 0 ? '' : text.slice(-keep));
}

/** The head, the omission marker and the tail, exactly as the seed prints them. */
export function joinWithMarker(head: string, omitted: number, tail: string): string {
  return `${head}\n...[${omitted} chars omitted]...\n${tail}`;
}
