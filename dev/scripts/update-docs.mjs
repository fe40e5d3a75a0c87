// Regenerates the docs' generated sections from the code they describe: the phase-level chart (README.md), one turn
// cycle and the cookbook (docs/rules.md), the endpoint profiles (docs/endpoints.md), the stall rules, the guards and
// every rules key (docs/rules-reference.md). Run after changing any of them: npm run docs:generate
// test/docs/generated-sections.test.ts fails while a section is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { docsSections } from '../dist/docs-sections/docs-sections.js';

const root = new URL('../../', import.meta.url);
const byPage = new Map();
for (const [name, { page, text }] of Object.entries(docsSections())) byPage.set(page, [...(byPage.get(page) ?? []), [name, text]]);
for (const [page, sections] of byPage) {
  const path = new URL(page, root);
  const before = readFileSync(path, 'utf8');
  let after = before;
  for (const [name, text] of sections) {
    const marker = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`);
    if (!marker.test(after)) {
      console.error(`${page}: no <!-- ${name}:start --> marker`);
      process.exitCode = 1;
      continue;
    }
    after = after.replace(marker, () => `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`);
  }
  if (after === before) console.log(`${page}: generated sections already up to date`);
  else {
    writeFileSync(path, after);
    console.log(`${page}: generated sections regenerated`);
  }
}
