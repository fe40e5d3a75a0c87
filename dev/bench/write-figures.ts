import { readFileSync, writeFileSync } from 'node:fs';
import { ReinError } from 'rein/lib';

const END = '<!-- figures:end -->';
const TOTAL = '<!-- bench:total -->';

/**
 * Puts each block (`<!-- bench:ID -->…<!-- /bench:ID -->`) into the document:
 * over the block with the same id, or, for a section new to the document,
 * before the total line (which stays last) or the figures' end marker.
 * Blocks of sections not run are left as they are.
 *
 * @example writeSections(new URL('../../docs/benchmarks.md', import.meta.url), [{ id: 'view', text }]);
 */
export function writeSections(path: URL, blocks: ReadonlyArray<{ id: string; text: string }>): void {
  let document = readFileSync(path, 'utf8');
  if (!document.includes(END)) throw new ReinError(`${path.pathname} has no ${END} marker to write the figures before`);
  for (const { id, text } of blocks) {
    const existing = new RegExp(`<!-- bench:${id} -->[\\s\\S]*?<!-- /bench:${id} -->`);
    const anchor = id !== 'total' && document.includes(TOTAL) ? TOTAL : END;
    document = existing.test(document) ? document.replace(existing, () => text) : document.replace(anchor, () => `${text}\n\n${anchor}`);
  }
  writeFileSync(path, document);
}
