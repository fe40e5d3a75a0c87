import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, reinBin, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Every Markdown page of the project: the README, docs/, and the READMEs beside the code (not the task suites' repos). */
const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path && !path.includes('/repo/') && !path.startsWith('test/fixtures/'));

const read = (page: string) => readFileSync(join(repoRoot, page), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of a page that does not lead to a file, or to a heading, that exists. */
function brokenLinks(page: string, markdown: string, exists: (path: string) => boolean, anchorsIn: (path: string) => Set<string>): string[] {
  const broken: string[] = [];
  for (const match of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^(https?:|mailto:)/.test(target)) continue;
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const file = path ? normalize(join(dirname(page), path)) : page;
    if (path && !exists(file)) broken.push(`${page}: ${target} (no such file)`);
    else if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
  }
  return broken;
}

/** The commands of a page's shell blocks: one per line (continuations joined, comments and a `$ ` prompt dropped). */
function commandsOf(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```(?:sh|bash|console)\n([\s\S]*?)```/g)) {
    const text = block[1]!.replace(/\s*\\\n\s*/g, ' ');
    for (const raw of text.split('\n')) {
      const line = raw
        .replace(/^\$ /, '')
        .replace(/\s+#(?![^'"]*['"]).*$/, '')
        .trim();
      if (line && !line.startsWith('#')) commands.push(line);
    }
  }
  return commands;
}

/** The `rein` commands written inline in a page's prose (`npx rein rules show --diff`), outside code blocks. */
function inlineCommandsOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`((?:npx )?rein (?:run|demo|resume|rewind|fork|approve|rules|trust|viz|trace|eval|compare|replay|worker)\b[^`]*)`/g)].map(
    (match) => match[1]!,
  );
}

/** Shell words of a command up to its first pipe, list or redirection; quotes removed, `<placeholder>`s kept as words. */
function wordsOf(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"([^"]*)"|'([^']*)'|(\|\||&&|[|;>])|(\S+)/g)) {
    if (match[3]) break;
    words.push(match[1] ?? match[2] ?? match[4]!);
  }
  // Environment assignments before the command (`DOCS_TOKEN=… rein rules tools`).
  while (words[0] && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words.shift();
  return words;
}

/** Programs the docs show that run outside this repository (a container, Harbor, SWE-bench's harness, git): named, not run. */
const OUTSIDE = new Set(['docker', 'harbor', 'python', 'git', 'export', 'curl', 'gh']);
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
/** A `rein` command's words, `<placeholders>` filled in so the parser sees a value. */
const filled = (words: string[]) => words.map((word) => word.replace(/<[^>]+>/g, 'x'));

/** Why a documented command would not work as written, or null. `rein` commands are parsed by the real CLI (`--help` after every flag). */
function checkCommand(command: string, cwd: string): string | null {
  const words = wordsOf(command);
  const [program, ...args] = words[0] === 'npx' && words[1] !== 'vitest' ? words.slice(1) : words;
  if (!program) return 'no command';
  if (program === 'rein') {
    const parsed = spawnSync(process.execPath, [reinBin, ...filled(args), '--help'], { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 30_000 });
    if (parsed.status !== 0) return `rein refuses it: ${parsed.stderr.trim().split('\n')[0]}`;
    const [name, sub] = args;
    if ((name === 'rules' || name === 'trace') && sub && !sub.startsWith('-') && !new RegExp(`\\b${sub}\\b`).test(parsed.stdout))
      return `rein ${name} has no subcommand ${sub}`;
    return null;
  }
  if (program === 'npm') {
    if (args[0] === 'run') return args[1]! in scripts ? null : `no npm script ${args[1]}`;
    if (args[0] === 'ci' || args[0] === 'test') return null;
    if (args[0] === 'link') return workspaces.some((folder) => `rein-${folder}` === args[2]) ? null : `no workspace ${args[2]}`;
    return `npm ${args[0]} is not checked`;
  }
  if (words[0] === 'npx' && words[1] === 'vitest') {
    const files = words.slice(3).filter((word) => !word.startsWith('-'));
    return files.every((file) => existsSync(join(repoRoot, file))) ? null : `a test file is missing: ${files.join(' ')}`;
  }
  if (program === 'bash' || program === 'node') return existsSync(join(repoRoot, args.find((word) => !word.startsWith('-'))!)) ? null : 'no such file';
  if (program === 'python3' && args[0] === '-m' && args[1] === 'pytest') return existsSync(join(repoRoot, args[2]!)) ? null : 'no such folder';
  if (program.includes('/')) return existsSync(join(repoRoot, program)) ? null : 'no such script';
  if (OUTSIDE.has(program)) return null;
  return `an unknown program (${program}): teach this test to check it`;
}

describe('the docs', () => {
  it('are read: the README, every page of docs/ and the READMEs beside the code', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/architecture.md');
    expect(pages.filter((page) => page.startsWith('docs/')).length).toBeGreaterThanOrEqual(10);
  });

  it('link only to files and headings that exist', () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (path: string) => anchors.get(path) ?? anchors.set(path, anchorsOf(read(path))).get(path)!;
    const broken = pages.flatMap((page) => brokenLinks(page, read(page), (path) => existsSync(join(repoRoot, path)), anchorsIn));
    expect(broken).toEqual([]);
  });

  it('show only commands that work as written: every rein flag parsed by rein itself, every script and file there', () => {
    const cwd = makeTempDir('rein-docs-commands-');
    const commands = pages.flatMap((page) => [...commandsOf(read(page)), ...inlineCommandsOf(read(page))].map((command) => ({ page, command })));
    // The same command on two pages parses the same: each distinct command is run once.
    const verdicts = new Map<string, string | null>();
    const verdictOf = (command: string) => (verdicts.has(command) ? verdicts.get(command)! : verdicts.set(command, checkCommand(command, cwd)).get(command)!);
    const checked = [...new Map(commands.map((entry) => [`${entry.page} ${entry.command}`, entry])).values()].map((entry) => ({
      ...entry,
      why: verdictOf(entry.command),
    }));
    expect(checked.filter(({ command }) => command.includes('rein ')).length).toBeGreaterThan(100);
    expect(checked.filter(({ why }) => why !== null).map(({ page, command, why }) => `${page}: ${command}: ${why}`)).toEqual([]);
  }, 600_000);

  it('the checks catch what they are for', () => {
    const exists = (path: string) => path === 'docs/a.md';
    const anchorsIn = () => new Set(['one']);
    expect(brokenLinks('docs/b.md', '[x](a.md#one) [y](a.md#two) [z](../gone.md) [w](https://e.org)', exists, anchorsIn)).toEqual([
      'docs/b.md: a.md#two (no such heading)',
      'docs/b.md: ../gone.md (no such file)',
    ]);
    expect(anchorsOf('# A title\n## Two commands\n## Two commands\n```\n# not a heading\n```')).toEqual(new Set(['a-title', 'two-commands', 'two-commands-1']));
    expect(commandsOf('```sh\nnpx rein run . "t" \\\n  --model m   # note\n$ rein demo\n```')).toEqual(['npx rein run . "t" --model m', 'rein demo']);
    expect(inlineCommandsOf('Run `npx rein rules show --diff`, not `rein` or `reinx run`.')).toEqual(['npx rein rules show --diff']);
    expect(wordsOf('DOCS_TOKEN=… rein rules tools --config "a b.json" | head')).toEqual(['rein', 'rules', 'tools', '--config', 'a b.json']);
    const cwd = makeTempDir('rein-docs-commands-');
    expect(checkCommand('npx rein run . "t" --modle m', cwd)).toMatch(/refuses it: .*--modle/);
    expect(checkCommand('npx rein rules grpah', cwd)).toBe('rein rules has no subcommand grpah');
    expect(checkCommand('npm run no-such-script', cwd)).toBe('no npm script no-such-script');
    expect(checkCommand('frobnicate --all', cwd)).toMatch(/unknown program/);
  }, 60_000);
});

describe('docs/architecture.md', () => {
  const page = read('docs/architecture.md');

  it('answers the ten newcomer questions, each under a heading of its own', () => {
    const questions = /## Where to look[\s\S]*$/.exec(page)?.[0] ?? '';
    expect([...questions.matchAll(/^### \d+\. /gm)].length).toBe(10);
  });

  it('names every docs page', () => {
    const listed = readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md') && name !== 'architecture.md');
    const readme = read('README.md');
    expect(listed.filter((name) => !readme.includes(`(docs/${name})`))).toEqual([]);
  });
});
