import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOnlyCalls, readOnlyCommandLine } from '../../../run/snapshots/read-only-calls.js';
import { makeTempDir } from '../../helpers/workspace.js';

// Which steps may keep the last snapshot's tree without scanning: the judge must say "may write" for anything that can
// write the workspace, and "read-only" for the reads agents run most (cat, grep, ls, head piped into each other).

const anywhere = () => true;
const readOnly = (command: string) => readOnlyCommandLine(command, anywhere);
const run = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'run', arguments: JSON.stringify({ command, ...extra }) });

describe('a command line that only reads', () => {
  it.each([
    'cat src/a.py',
    'cat -n a.py | head -50',
    'grep -rn "def main" . 2>/dev/null | head',
    'ls -la && wc -l *.py',
    'cd src; grep -c TODO *.ts',
    'find . -name "*.py" -not -path "./.git/*" | sort | head',
    'rg -n foo -g "*.ts"',
    'diff -u a.txt b.txt || true',
    'tail -n 20 log.txt 2>&1',
    'sort -u names.txt',
    'echo done',
    // Words that only look like the dangerous options: a name, a pattern, another option.
    'find . -name keep-delete',
    'find . -iname "-delete-me.txt"',
    'rg -n x--pre src',
    'rg --pretty foo',
    'sort -k2 data-To.txt',
    'sort --numeric-sort --outputs-are-fine.txt',
  ])('%s', (command) => {
    expect(readOnly(command)).toBe(true);
  });
});

describe('a command line that may write, or whose words are not what runs', () => {
  it.each([
    ['a redirection to a file', 'cat a > b'],
    ['an append', 'echo x >> notes.txt'],
    ['a redirection glued to a word', 'cat a 2>/dev/nullx'],
    ['a program that writes', 'sed -i s/a/b/ f.py'],
    ['a writer in a pipeline', 'cat a | tee b'],
    ['a writer after &&', 'ls && rm -rf build'],
    ['a substitution', 'cat $(touch x)'],
    ['backticks', 'echo `rm a`'],
    ['a variable expansion', 'find . $FLAGS'],
    ['a leading assignment', 'LD_PRELOAD=./evil.so cat a'],
    ['a background job', 'cat a &'],
    ['a subshell', '(cat a; rm b)'],
    ['a function definition', 'cat() { rm -rf x; }; cat a'],
    ['find -delete', 'find . -name "*.pyc" -delete'],
    ['find -exec', 'find . -exec rm {} +'],
    ['find -fprint', 'find . -fprint out.txt'],
    ['an unquoted glob find could take for an option (a file named -delete)', 'find *'],
    ['a brace expansion into an option', 'find . {-delete,-print}'],
    ['rg --pre runs a program', 'rg --pre ./x foo'],
    ['rg --pre= form', 'rg --pre=./x foo'],
    ['sort -o writes', 'sort -o out.txt in.txt'],
    ['sort with -o in a cluster', 'sort -uo out.txt in.txt'],
    ['sort --output', 'sort --output=out.txt in.txt'],
    ['sort --output by a start of its name, as GNU takes it', 'sort --out=out.txt in.txt'],
    ['sort --compress-program by a start of its name', 'sort --comp gzip in.txt'],
    ['a program by path', './cat a'],
    ['a program of the workspace by path', 'bin/cat a'],
    ['an interpreter', 'python3 -c "print(1)"'],
    ['git, which runs configured programs', 'git diff'],
    ['an unterminated quote', 'cat "a'],
    ['an empty line', '   '],
    ['a subshell of reads (not judged inside)', '(cat a)'],
    ['a program named after an Object method', 'hasOwnProperty a'],
  ])('%s: %s', (_what, command) => {
    expect(readOnly(command)).toBe(false);
  });
});

describe('judging a step’s calls', () => {
  it('reading tools and read-only commands are read-only; any other call makes the step one that may write', () => {
    const workspace = makeTempDir('rein-ro-');
    const judge = readOnlyCalls({ workspace, env: { PATH: '/usr/bin:/bin' } });
    expect(judge.readOnly([{ name: 'read_file', arguments: '{"path":"a"}' }, run('cat a | head'), { name: 'update_todo', arguments: '{}' }])).toBe(true);
    expect(judge.readOnly([])).toBe(true);
    expect(judge.readOnly([run('cat a'), { name: 'edit_file', arguments: '{}' }])).toBe(false);
    expect(judge.readOnly([run('cat a', { background: true })])).toBe(false);
    expect(judge.readOnly([{ name: 'delegate', arguments: '{}' }])).toBe(false);
    expect(judge.readOnly([{ name: 'mcp__fs__read', arguments: '{}' }])).toBe(false);
    expect(judge.readOnly([{ name: 'run', arguments: '{"command": "cat a"' }])).toBe(false);
    expect(judge.readOnly([{ name: 'run', arguments: '{"command": ["cat"]}' }])).toBe(false);
    expect(judge.readOnly([{ name: 'finish', arguments: '{}' }, run('cat a', { background: false })])).toBe(true);
    for (const odd of ['null', '"cat a"', '[]', '7']) expect(judge.readOnly([{ name: 'run', arguments: odd }])).toBe(false);
  });

  it('a shell that reads a start-up file (BASH_ENV) may run anything before the command', () => {
    const workspace = makeTempDir('rein-ro-');
    expect(readOnlyCalls({ workspace, env: { PATH: '/usr/bin:/bin' } }).readOnly([run('cat a')])).toBe(true);
    expect(readOnlyCalls({ workspace, env: { PATH: '/usr/bin:/bin', BASH_ENV: join(workspace, 'x') } }).readOnly([run('cat a')])).toBe(false);
    expect(readOnlyCalls({ workspace, env: { PATH: '/usr/bin:/bin', ENV: join(workspace, 'x') } }).readOnly([run('cat a')])).toBe(false);
    // Tools other than run do not start a shell.
    expect(readOnlyCalls({ workspace, env: { PATH: '/usr/bin:/bin', ENV: 'x' } }).readOnly([{ name: 'read_file', arguments: '{}' }])).toBe(true);
  });

  it('a program found in the workspace, or after a relative or workspace folder on PATH, is not trusted', () => {
    const workspace = makeTempDir('rein-ro-');
    const bin = join(workspace, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'cat'), '#!/bin/sh\necho planted > planted.txt\n');
    chmodSync(join(bin, 'cat'), 0o755);
    // The workspace's own folder first on PATH: even a name it does not hold yet could be put there by a command.
    expect(readOnlyCalls({ workspace, env: { PATH: `${bin}:/usr/bin:/bin` } }).readOnly([run('head a')])).toBe(false);
    expect(readOnlyCalls({ workspace, env: { PATH: `node_modules/.bin:/usr/bin:/bin` } }).readOnly([run('head a')])).toBe(false);
    expect(readOnlyCalls({ workspace, env: { PATH: `${workspace}:/usr/bin:/bin` } }).readOnly([run('head a')])).toBe(false);
    // After the system folders it is never reached for a program they hold.
    expect(readOnlyCalls({ workspace, env: { PATH: `/usr/bin:/bin:${bin}` } }).readOnly([run('cat a')])).toBe(true);
    // A builtin is never looked up on PATH.
    expect(readOnlyCalls({ workspace, env: { PATH: `${bin}:/usr/bin` } }).readOnly([run('echo hi')])).toBe(true);
  });

  it('where a program was found is forgotten on request (after a step that may have put one on PATH)', () => {
    const workspace = makeTempDir('rein-ro-');
    const tools = makeTempDir('rein-ro-path-');
    const judge = readOnlyCalls({ workspace, env: { PATH: tools } });
    expect(judge.readOnly([run('cat a')])).toBe(false);
    writeFileSync(join(tools, 'cat'), '');
    expect(judge.readOnly([run('cat a')])).toBe(false);
    judge.forget();
    expect(judge.readOnly([run('cat a')])).toBe(true);
  });
});
