import { readFileSync, writeFileSync } from 'node:fs';
import { ReinError } from '../lib/errors.js';

const END = '<!-- figures:end -->';

/**
 * Puts each block (`<!-- bench:ID -->…<!-- /bench:ID -->`) into the document:
 * over the block with the same id, or before the figures' end marker if the
 * document has none yet. Blocks of sections not run are left as they are.
 *
 * @example writeSections(new URL('../../BENCHMARKS.md', import.meta.url), [{ id: 'view', text }]);
 */
export function writeSections(path: URL, blocks: ReadonlyArray<{ id: string; text: string }>): void {
  let document = readFileSync(path, 'utf8');
  if (!document.includes(END)) throw new ReinError(`${path.pathname} has no ${END} marker to write the figures before`);
  for (const { id, text } of blocks) {
    const existing = new RegExp(`<!-- bench:${id} -->[\\s\\S]*?<!-- /bench:${id} -->`);
    document = existing.test(document) ? document.replace(existing, () => text) : document.replace(END, () => `${text}\n\n${END}`);
  }
  writeFileSync(path, document);
}
