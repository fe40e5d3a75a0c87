// Regenerates the statechart diagram in README.md from the machine the default rules build.
// Run after changing the machine or the default rules: npm run build && node scripts/update-readme.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createHarnessMachine } from '../dist/machines/harness-machine.js';
import { defaultRules } from '../dist/rules/schema.js';
import { toMermaid } from '../dist/visualizer/server/mermaid.js';

const path = new URL('../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const block = `<!-- statechart:start -->\n\`\`\`mermaid\n${toMermaid(createHarnessMachine(defaultRules()))}\n\`\`\`\n<!-- statechart:end -->`;
const updated = readme.replace(/<!-- statechart:start -->[\s\S]*<!-- statechart:end -->/, block);
if (updated === readme) console.log('README.md: statechart already up to date');
else { writeFileSync(path, updated); console.log('README.md: statechart regenerated'); }
