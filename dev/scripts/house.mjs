// The house, measured: what `git ls-files` puts at the top level, the README's length, the longest functions and those
// with the most positional parameters in the shipped code (tests and the task suites' repos left out). Issue 37 set the
// targets: at most 24 top-level entries, a README of at most 300 lines, no function over about 100 lines or with more
// than four positional parameters in a run's assembly. Run: npm run house
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from '@babel/parser';

const root = new URL('../../', import.meta.url);
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const tracked = git('ls-files', '--cached', '--others', '--exclude-standard');
const topLevel = [...new Set(tracked.map((path) => path.split('/')[0]))].sort();
console.log(`top-level entries: ${topLevel.length} (${topLevel.join(' ')})`);
console.log(`README.md: ${readFileSync(new URL('README.md', root), 'utf8').split('\n').length} lines`);

const rows = [];
for (const file of tracked.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts') && !path.startsWith('test/') && !path.includes('/repo/'))) {
  const ast = parse(readFileSync(new URL(file, root), 'utf8'), { sourceType: 'module', plugins: ['typescript'] });
  const visit = (node, name) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child, name);
      return;
    }
    if (/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression|ClassMethod|ObjectMethod)$/.test(node.type) && node.loc)
      rows.push({
        where: `${file} ${node.id?.name ?? node.key?.name ?? name ?? '(anonymous)'}`,
        lines: node.loc.end.line - node.loc.start.line + 1,
        params: node.params.length,
      });
    for (const [key, value] of Object.entries(node))
      if (key !== 'loc' && value && typeof value === 'object') visit(value, node.type === 'VariableDeclarator' ? node.id?.name : name);
  };
  visit(ast.program, null);
}
const top = (key, count) =>
  [...rows]
    .sort((a, b) => b[key] - a[key])
    .slice(0, count)
    .map((row) => `  ${String(row[key]).padStart(4)}  ${row.where}`);
console.log(
  `functions: ${rows.length}; over 100 lines: ${rows.filter((row) => row.lines > 100).length}; more than 4 positional parameters: ${rows.filter((row) => row.params > 4).length}`,
);
console.log(['longest functions (lines):', ...top('lines', 10)].join('\n'));
console.log(['most positional parameters:', ...top('params', 6)].join('\n'));
