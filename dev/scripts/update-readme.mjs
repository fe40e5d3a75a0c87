// Regenerates README.md's generated sections from the code they describe: the phase-level chart and one turn cycle
// (from the machine the default rules build), the stall rules (from their table), the guards (from their catalogue), every rules key (from
// the schema) and the cookbook (from docs/cookbook). Run after changing any of them: npm run docs:readme
// test/docs/readme.test.ts fails while a section is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { readmeSections } from '../dist/docs-sections/readme-sections.js';

const path = new URL('../../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const sections = readmeSections();
let updated = readme;
for (const [name, text] of Object.entries(sections)) {
  const marker = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`);
  if (!marker.test(updated)) {
    console.error(`README.md: no <!-- ${name}:start --> marker`);
    process.exitCode = 1;
    continue;
  }
  updated = updated.replace(marker, () => `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`);
}
if (updated === readme) console.log('README.md: generated sections already up to date');
else {
  writeFileSync(path, updated);
  console.log('README.md: generated sections regenerated');
}
