// Regenerates the figures in docs/mutation.md from Stryker's JSON report: the score of each file group in
// stryker.config.mjs, every mutant that survived or had no test, and every mutant left out as equivalent
// (a `// Stryker disable next-line <mutator>: <reason>` comment in the source) with its reason.
// Run after `npm run mutate`: npm run mutate:report [-- path/to/mutation.json]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { groups } from '../mutation/stryker.config.mjs';

const reportPath = process.argv[2] ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const docPath = new URL('../../docs/mutation.md', import.meta.url);

/** `tools/**\/*.ts` → a RegExp on repo-relative paths. */
function globToRegExp(glob) {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*\//g, '(?:.*/)?')
    .replace(/\*/g, '[^/]*');
  return new RegExp(`^${source}$`);
}

/** The repo's files a group's globs name (so a file the report lacks is named, not silently left out of the score). */
function filesOf(patterns) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(new URL(`../../${dir}`, import.meta.url), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (patterns.some((pattern) => pattern.test(path))) found.push(path);
    }
  };
  // RegExp's source writes '/' as '\/': unescape it before taking the top folder.
  for (const top of new Set(patterns.map((pattern) => pattern.source.slice(1).replaceAll('\\/', '/').split('/')[0]))) walk(top);
  return found;
}

// The figures written last time: a group this report does not cover keeps its row and its listed mutants
// (each group as of its own last run), so re-running some groups never drops the others.
const previous = (() => {
  const block = /<!-- mutation:start -->([\s\S]*)<!-- mutation:end -->/.exec(readFileSync(docPath, 'utf8'))?.[1] ?? '';
  const rows = new Map();
  for (const line of block.split('\n')) {
    const cells = line.startsWith('| ') ? line.slice(2, -2).split(' | ') : [];
    if (cells.length === 8 && /^\d+$/.test(cells[3])) rows.set(cells[0], cells);
  }
  const listed = block.split('\n').filter((line) => line.startsWith('- `'));
  return { rows, listed };
})();

const files = Object.entries(report.files).map(([path, file]) => ({ path: path.replace(/\\/g, '/'), mutants: file.mutants, lines: file.source.split('\n') }));
const rows = [];
const alive = [];
const equivalent = [];
/** The table row of a set of mutants: score, detected, survived, no test, ignored, did not compile. */
function row(name, files, mutants) {
  const count = (...statuses) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
  return counted(name, files, [count('Killed', 'Timeout'), count('Survived'), count('NoCoverage'), count('Ignored'), count('CompileError', 'RuntimeError')]);
}
/** A table row from its counts: detected, survived, no test, ignored, did not compile. */
function counted(name, files, [detected, survived, noTest, ignored, broken]) {
  const undetected = survived + noTest;
  const score = detected + undetected > 0 ? `${((detected / (detected + undetected)) * 100).toFixed(1)}%` : 'none scored';
  const empty = detected + undetected + ignored + broken === 0;
  return [name, files, empty ? 'not in this report' : score, detected, survived, noTest, ignored, broken];
}
const kept = [];
const byFolder = new Map();
for (const group of groups) {
  const patterns = group.files.map(globToRegExp);
  const inGroup = files.filter((file) => patterns.some((pattern) => pattern.test(file.path)));
  const mutants = inGroup.flatMap((file) => file.mutants.map((mutant) => ({ ...mutant, file })));
  const missing = filesOf(patterns).filter((path) => !inGroup.some((file) => file.path === path));
  const unscored = missing.length > 0 && inGroup.length > 0 ? ` (not scored yet: ${missing.join(', ')})` : '';
  const before = previous.rows.get(group.name);
  if (inGroup.length === 0 && before) {
    // Not in this report: the row and the mutants listed for its files, as written last time.
    rows.push([before[0], before[1], before[2], ...before.slice(3).map(Number)]);
    kept.push(group.name);
    const listedHere = previous.listed.filter((line) => patterns.some((pattern) => pattern.test(/^- `([^:`]+)/.exec(line)?.[1] ?? '')));
    for (const line of listedHere) (line.includes('(Survived)') || line.includes('(NoCoverage)') ? alive : equivalent).push(line);
  } else rows.push(row(group.name, `${group.files.join(', ')}${unscored}`, mutants));
  // A folder scored in several groups (the machine, by concern) also gets a total row.
  if (group.folder) {
    const folder = byFolder.get(group.folder) ?? { rows: [], groups: 0, scored: 0, unscoredFiles: [] };
    const groupRow = rows.at(-1);
    byFolder.set(group.folder, {
      rows: [...folder.rows, groupRow],
      groups: folder.groups + 1,
      scored: folder.scored + (groupRow[2] === 'not in this report' ? 0 : 1),
      unscoredFiles: [...folder.unscoredFiles, ...(inGroup.length > 0 ? missing : [])],
    });
  }
  for (const mutant of mutants) {
    const where = `${mutant.file.path}:${mutant.location.start.line}`;
    const original = mutant.file.lines[mutant.location.start.line - 1].trim();
    if (mutant.status === 'Survived' || mutant.status === 'NoCoverage')
      alive.push(`- \`${where}\` ${mutant.mutatorName} (${mutant.status}): \`${oneLine(mutant.replacement)}\` in \`${oneLine(original)}\``);
    if (mutant.status === 'Ignored') equivalent.push(`- \`${where}\` ${mutant.mutatorName}: ${oneLine(mutant.statusReason ?? 'no reason given')}`);
  }
}
for (const [folder, { rows: groupRows, groups: count, scored, unscoredFiles }] of byFolder) {
  if (count < 2) continue;
  const groupsIn = scored === count ? `all ${count} groups` : `${scored} of its ${count} groups scored`;
  // A kept group's files not scored yet are named in its kept row: counted from there.
  const keptUnscored = groupRows
    .filter((groupRow) => kept.includes(groupRow[0]))
    .reduce((sum, groupRow) => sum + (/not scored yet: ([^)]*)\)/.exec(groupRow[1])?.[1].split(', ').length ?? 0), 0);
  const unscoredCount = unscoredFiles.length + keptUnscored;
  const partly = unscoredCount > 0 ? `; ${unscoredCount} of their files not scored yet` : '';
  const sums = [3, 4, 5, 6, 7].map((column) => groupRows.reduce((sum, groupRow) => sum + groupRow[column], 0));
  rows.push(counted(`${folder}/ total`, `${folder}/ (${groupsIn}${partly})`, sums));
}

function oneLine(text) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return (flat.length > 90 ? `${flat.slice(0, 87)}...` : flat).replace(/`/g, "'");
}

const table = [
  '| group | files | mutation score | killed or timed out | survived | no test | equivalent (ignored) | did not compile |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((row) => `| ${row.join(' | ')} |`),
].join('\n');
const block = [
  '<!-- mutation:start -->',
  `Figures from \`${reportPath}\` (Stryker ${report.framework?.version ?? ''}, schema ${report.schemaVersion}), written by \`npm run mutate:report\`.`,
  '',
  table,
  '',
  ...(kept.length > 0 ? [`Not in this report, kept as written by the previous \`npm run mutate:report\`: ${kept.join('; ')}.`, ''] : []),
  '### Mutants no test detects',
  '',
  alive.length > 0 ? alive.join('\n') : 'None.',
  '',
  '### Mutants left out as equivalent (the change cannot alter behaviour), with the reason given in the source',
  '',
  equivalent.length > 0 ? equivalent.join('\n') : 'None.',
  '<!-- mutation:end -->',
].join('\n');
const document = readFileSync(docPath, 'utf8');
if (!document.includes('<!-- mutation:start -->')) throw new Error('docs/mutation.md has no <!-- mutation:start --> marker');
writeFileSync(
  docPath,
  document.replace(/<!-- mutation:start -->[\s\S]*<!-- mutation:end -->/, () => block),
);
console.log(`docs/mutation.md: ${rows.length} groups, ${alive.length} undetected, ${equivalent.length} equivalent`);
