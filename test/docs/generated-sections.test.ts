import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsSections } from '../../dev/docs-sections/docs-sections.js';
import { repoRoot } from '../helpers/cli.js';

describe('the generated sections of the README and docs/', () => {
  it.each(Object.entries(docsSections()))('%s is generated from the code it describes', (name, { page, text }) => {
    const shown = readFileSync(join(repoRoot, page), 'utf8');
    const block = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(shown)?.[1];
    expect(block, `${page}'s ${name} section is out of date: run \`npm run docs:generate\``).toBe(text);
  });

  it('links from the page that shows them', () => {
    const { cookbook, 'stall-rules': stall } = docsSections();
    expect(cookbook!.text).toContain('](cookbook/');
    expect(stall!.text).toContain('](../machines/stall/progress.ts)');
  });
});
