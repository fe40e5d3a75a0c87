// Regenerates the figures in MUTATION.md from Stryker's JSON report: the score of each file group in
// stryker.config.mjs, every mutant that survived or had no test, and every mutant left out as equivalent
// (a `// Stryker disable next-line <mutator>: <reason>` comment in the source) with its reason.
// Run after `npm run mutate`: npm run mutate:report [-- path/to/mutation.json]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { groups } from '../stryker.config.mjs';

const reportPath = process.argv[2] ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const docPath = new URL('../MUTATION.md', import.meta.url);

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
    for (const entry of readdirSync(new URL(`../${dir}`, import.meta.url), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (patterns.some((pattern) => pattern.test(path))) found.push(path);
    }
  };
  // RegExp's source writes '/' as '\/': unescape it before taking the top folder.
  for (const top of new Set(patterns.map((pattern) => pattern.source.slice(1).replaceAll('\\/', '/').split('/')[0]))) walk(top);
  return found;
}

const files = Object.entries(report.files).map(([path, file]) => ({ path: path.replace(/\\/g, '/'), mutants: file.mutants, lines: file.source.split('\n') }));
const rows = [];
const alive = [];
const equivalent = [];
/** The table row of a set of mutants: score, detected, survived, no test, ignored, did not compile. */
function row(name, files, mutants) {
  const count = (...statuses) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  const score = detected + undetected > 0 ? `${((detected / (detected + undetected)) * 100).toFixed(1)}%` : 'none scored';
  return [
    name,
    files,
    mutants.length === 0 ? 'not in this report' : score,
    detected,
    count('Survived'),
    count('NoCoverage'),
    count('Ignored'),
    count('CompileError', 'RuntimeError'),
  ];
}
const byFolder = new Map();
for (const group of groups) {
  const patterns = group.files.map(globToRegExp);
  const inGroup = files.filter((file) => patterns.some((pattern) => pattern.test(file.path)));
  const mutants = inGroup.flatMap((file) => file.mutants.map((mutant) => ({ ...mutant, file })));
  const missing = filesOf(patterns).filter((path) => !inGroup.some((file) => file.path === path));
  const unscored = missing.length > 0 && inGroup.length > 0 ? ` (not scored yet: ${missing.join(', ')})` : '';
  rows.push(row(group.name, `${group.files.join(', ')}${unscored}`, mutants));
  // A folder scored in several groups (the machine, by concern) also gets a total row.
  if (group.folder) {
    const folder = byFolder.get(group.folder) ?? { mutants: [], groups: 0, scored: 0, unscoredFiles: [] };
    byFolder.set(group.folder, {
      mutants: [...folder.mutants, ...mutants],
      groups: folder.groups + 1,
      scored: folder.scored + (mutants.length > 0 ? 1 : 0),
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
for (const [folder, { mutants, groups: count, scored, unscoredFiles }] of byFolder) {
  if (count < 2) continue;
  const groupsIn = scored === count ? `all ${count} groups` : `${scored} of its ${count} groups in this report`;
  const partly = unscoredFiles.length > 0 ? `; ${unscoredFiles.length} of their files not scored yet` : '';
  const files = `${folder}/ (${groupsIn}${partly})`;
  rows.push(row(`${folder}/ total`, files, mutants));
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
if (!document.includes('<!-- mutation:start -->')) throw new Error('MUTATION.md has no <!-- mutation:start --> marker');
writeFileSync(
  docPath,
  document.replace(/<!-- mutation:start -->[\s\S]*<!-- mutation:end -->/, () => block),
);
console.log(`MUTATION.md: ${rows.length} groups, ${alive.length} undetected, ${equivalent.length} equivalent`);
