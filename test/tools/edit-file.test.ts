import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HiddenPathError, MissingFileError } from '../../lib/errors.js';
import { shortHash } from '../../lib/short-hash.js';
import { editFileTool } from '../../tools/edit-file.js';
import { checkSyntax, createSyntaxChecker } from '../../tools/edits/syntax-check.js';
import { makeContext, makeTempDir, writeFiles } from '../helpers/workspace.js';

const edit = (root: string, file: string, old: string, replacement: string) => editFileTool.execute({ path: file, old, new: replacement }, makeContext(root));

/** Applies an edit that must be rejected and checks the file is byte-identical afterwards. */
async function expectRejected(file: string, source: string, old: string, replacement: string): Promise<string> {
  const root = makeTempDir();
  writeFiles(root, { [file]: source });
  const before = fs.readFileSync(path.join(root, file));
  const result = await edit(root, file, old, replacement);
  expect(result.ok).toBe(false);
  expect(result.effect).toEqual({ kind: 'edit', path: file, applied: false });
  expect(fs.readFileSync(path.join(root, file)).equals(before)).toBe(true);
  expect(fs.readdirSync(path.dirname(path.join(root, file)))).toEqual([path.basename(file)]);
  return result.content;
}

describe('edit_file rejections', () => {
  it('rejects a Python edit that breaks indentation, with line and column', async () => {
    const message = await expectRejected('stats.py', 'def mean(xs):\n    return sum(xs) / len(xs)\n', '    return', 'return');
    expect(message).toMatch(/^Edit rejected, file unchanged\. Syntax error:\nstats\.py:2:\d+: IndentationError: expected an indented block/);
  });

  it('rejects syntax-breaking JS, TS, TSX, JSON and YAML edits', async () => {
    expect(await expectRejected('a.js', 'const x = 1;\n', '= 1', '= ')).toMatch(/a\.js:1:\d+: SyntaxError: Unexpected token/);
    expect(await expectRejected('a.ts', 'let n: number = 1;\n', 'number', 'number<')).toMatch(/a\.ts:1:\d+: SyntaxError/);
    expect(await expectRejected('a.tsx', 'export const A = () => <div>hi</div>;\n', '</div>', '</span>')).toMatch(/a\.tsx:1:\d+: SyntaxError/);
    expect(await expectRejected('a.json', '{\n  "a": 1,\n  "b": 2\n}\n', '"b": 2', '"b": 2,')).toMatch(/a\.json:4:1: SyntaxError/);
    expect(await expectRejected('a.yaml', 'a: 1\nb: [1, 2]\n', '[1, 2]', '[1, 2')).toMatch(/a\.yaml:\d+:\d+: YAMLParseError/);
  });

  it("refuses to change rein's own files: the rules file and the .rein state folder", async () => {
    const root = makeTempDir();
    writeFiles(root, { 'rein.config.mjs': 'export default {};\n', '.rein/runs/a/run.json': '{"configPath":"x"}\n', 'src/app.js': 'export const a = 1;\n' });
    await expect(edit(root, 'rein.config.mjs', 'export default {};', 'export default { permissions: { sandbox: "none" } };')).rejects.toThrow(
      /belongs to rein/,
    );
    await expect(edit(root, './.rein/runs/a/run.json', '"x"', '"y"')).rejects.toThrow(/belongs to rein/);
    expect(fs.readFileSync(path.join(root, 'rein.config.mjs'), 'utf8')).toBe('export default {};\n');
    expect(fs.readFileSync(path.join(root, '.rein/runs/a/run.json'), 'utf8')).toBe('{"configPath":"x"}\n');
    // A rules file given with --config is protected wherever it lives.
    writeFiles(root, { 'cfg/rules.mjs': 'export default {};\n' });
    await expect(
      editFileTool.execute({ path: 'cfg/rules.mjs', old: '{}', new: '{ a: 1 }' }, makeContext(root, { protectedFiles: [path.join(root, 'cfg/rules.mjs')] })),
    ).rejects.toThrow(/belongs to rein/);
    // A file of the same name deeper in the tree is the project's own.
    writeFiles(root, { 'src/rein.config.json': '{"a": 1}\n' });
    expect((await edit(root, 'src/rein.config.json', '1', '2')).ok).toBe(true);
  });

  it('requires exactly one match', async () => {
    expect(await expectRejected('a.txt', 'x = 1\nx = 1\n', 'x = 1', 'x = 2')).toBe('Edit rejected: `old` must match exactly once, found 2 matches.');
    expect(await expectRejected('a.txt', 'x = 1\n', 'y', 'z')).toBe('Edit rejected: `old` must match exactly once, found 0 matches.');
  });

  it('refuses non-UTF-8 files rather than corrupting them', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    const result = await edit(root, 'latin1.txt', 'caf', 'CAF');
    expect(result.content).toMatch(/not a UTF-8 text file/);
    expect(fs.readFileSync(path.join(root, 'latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it('refuses a file with NUL bytes as binary, even when it decodes as UTF-8', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'data.bin': Buffer.from('abc\0def\n') });
    expect((await edit(root, 'data.bin', 'abc', 'xyz')).content).toBe('Edit rejected: data.bin is not a UTF-8 text file; change it with a command instead.');
    expect(fs.readFileSync(path.join(root, 'data.bin'), 'utf8')).toBe('abc\0def\n');
  });

  it('counts an empty `old` as Python does (length + 1 matches), so it is refused', async () => {
    expect(await expectRejected('a.txt', 'abc\n', '', 'x')).toBe('Edit rejected: `old` must match exactly once, found 5 matches.');
  });

  it('throws MissingFileError for a missing file', async () => {
    const root = makeTempDir();
    await expect(edit(root, 'ghost.py', 'a', 'b')).rejects.toThrow(MissingFileError);
  });
});

describe('edit_file accepted edits', () => {
  it('writes the edit and echoes the region from three lines above', async () => {
    const root = makeTempDir();
    const lines = Array.from({ length: 30 }, (_, i) => `x${i + 1} = ${i + 1}`);
    writeFiles(root, { 'm.py': `${lines.join('\n')}\n` });
    const result = await edit(root, 'm.py', 'x20 = 20', 'x20 = 200');
    expect(result.ok).toBe(true);
    // The file's content before and after, hashed: the stall detector tells a new version from an old one by them.
    const before = `${lines.join('\n')}\n`;
    expect(result.effect).toEqual({
      kind: 'edit',
      path: 'm.py',
      applied: true,
      before: shortHash(before),
      after: shortHash(before.replace('x20 = 20', 'x20 = 200')),
    });
    expect(result.content.split('\n').slice(0, 3)).toEqual(['Edit applied.', '[m.py: lines 17-30 of 30; 16 above, 0 below]', '   17  x17 = 17']);
    expect(result.content).toContain('   20  x20 = 200');
    expect(fs.readFileSync(path.join(root, 'm.py'), 'utf8')).toContain('x20 = 200\nx21 = 21');
  });

  it('echoes from three lines above the line where `old` starts, on the last line and when `old` starts with a newline', async () => {
    const root = makeTempDir();
    const lines = Array.from({ length: 30 }, (_, i) => `x${i + 1} = ${i + 1}`);
    writeFiles(root, { 'm.py': lines.join('\n'), 'n.py': `${lines.join('\n')}\n` });
    expect((await edit(root, 'm.py', 'x30 = 30', 'x30 = 300')).content.split('\n')[1]).toBe('[m.py: lines 27-30 of 30; 26 above, 0 below]');
    // `old` starts with the newline that ends line 19: the edit starts on line 19.
    expect((await edit(root, 'n.py', '\nx20 = 20', '\nx20 = 200')).content.split('\n')[1]).toBe('[n.py: lines 16-30 of 30; 15 above, 0 below]');
  });

  it('cuts the echo at 1,500 chars', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'long.txt': `target\n${`${'word '.repeat(40)}\n`.repeat(100)}` });
    const result = await edit(root, 'long.txt', 'target', 'done');
    expect(result.content.length).toBe('Edit applied.\n'.length + 1500);
  });

  it('preserves CRLF endings, the BOM, the file mode and `$` sequences in the replacement', async () => {
    const root = makeTempDir();
    const file = path.join(root, 'win.js');
    fs.writeFileSync(file, '\uFEFFconst a = 1;\r\nconst b = 2;\r\n');
    fs.chmodSync(file, 0o751);
    const result = await edit(root, 'win.js', 'const b = 2;', "const b = '$&$1';");
    expect(result.ok).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe("\uFEFFconst a = 1;\r\nconst b = '$&$1';\r\n");
    expect(fs.statSync(file).mode & 0o777).toBe(0o751);
  });

  it('accepts an edit to a file that was already broken, with a note', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'broken.py': 'def a(:\n    pass\n\ndef b(:\n    pass\n' });
    const result = await edit(root, 'broken.py', 'def a(:', 'def a():');
    expect(result.ok).toBe(true);
    expect(result.content).toMatch(/^Edit applied\.\n\[the file still has a syntax error, as it had before this edit:\nbroken\.py:4:/);
  });

  it('applies a Python edit with a note when python3 is missing', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.py': 'x = 1\n' });
    const savedPath = process.env.PATH;
    process.env.PATH = '/nonexistent-bin';
    try {
      expect((await edit(root, 'a.py', 'x = 1', 'x = (')).content).toBe(
        'Edit applied.\n[syntax not checked: python3 not found on PATH]\n[a.py: lines 1-1 of 1; 0 above, 0 below]\n    1  x = (',
      );
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('edits files of unknown type without a check', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'notes.md': '# Title\n' });
    expect((await edit(root, 'notes.md', 'Title', 'New title')).content).toBe(
      'Edit applied.\n[notes.md: lines 1-1 of 1; 0 above, 0 below]\n    1  # New title',
    );
  });
});

describe('checkSyntax', () => {
  it('accepts valid code in every supported language', async () => {
    const valid: Record<string, string> = {
      'a.py': 'match x:\n    case [1, *rest]:\n        pass\n',
      'a.js': 'const el = <div>{x}</div>;\nawait go();\n',
      'a.mjs': 'export const x = await import("y");\n',
      'a.cjs': 'if (x) return;\nmodule.exports = 1;\n',
      'a.ts': 'function id<T>(x: T): T { return <T>x; }\n@dec class A {}\n',
      'a.d.ts': 'declare function f(x: number): string;\n',
      'a.tsx': 'const A = <T,>(x: T) => <b>{String(x)}</b>;\n',
      'a.json': '\uFEFF{"a": [1, 2, {"b": null}]}',
      'a.yml': 'a: 1\n---\nb: [1, 2]\n',
    };
    for (const [name, source] of Object.entries(valid)) expect(await checkSyntax(name, source), name).toEqual({ kind: 'valid' });
  });

  it('catches Python errors that only compile() sees, with the offending line', async () => {
    const verdict = await checkSyntax('f.py', 'x = 1\nreturn x\n');
    expect(verdict).toEqual({ kind: 'invalid', message: "f.py:2:1: SyntaxError: 'return' outside function\nreturn x\n^" });
  });
});

describe('edit_file recovery for a resumed run', () => {
  it('reports an edit whose write already happened instead of applying it again', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.js': 'const a = 1;\nconst b = 2;\n' });
    const args = { path: 'a.js', old: 'const b = 2;', new: 'const b = 3;' };
    expect(await editFileTool.recover!(args, makeContext(root))).toBeNull();
    const first = await editFileTool.execute(args, makeContext(root));
    const recovered = await editFileTool.recover!(args, makeContext(root));
    expect(recovered).toEqual(first);
    expect(fs.readFileSync(path.join(root, 'a.js'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('refuses a file the sandbox hides, as the edit itself does, instead of reading it', async () => {
    const root = makeTempDir();
    writeFiles(root, { '.env': 'TOKEN=new\n' });
    const args = { path: '.env', old: 'TOKEN=old', new: 'TOKEN=new' };
    await expect(editFileTool.execute(args, makeContext(root))).rejects.toThrow(HiddenPathError);
    await expect(editFileTool.recover!(args, makeContext(root))).rejects.toThrow(HiddenPathError);
    // Named in permissions.readable, it is the project's own again.
    expect(await editFileTool.recover!(args, makeContext(root, { policy: { readable: ['.env'] } }))).toMatchObject({ ok: true });
  });

  it('leaves ambiguous cases to a real attempt', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.js': 'x();\nx();\n', 'b.js': 'a();\nb();\n', 'empty.js': '', 'latin1.txt': Buffer.from([0x63, 0xe9]) });
    expect(await editFileTool.recover!({ path: 'a.js', old: 'y();', new: 'x();' }, makeContext(root))).toBeNull();
    expect(await editFileTool.recover!({ path: 'a.js', old: 'x();', new: 'x(); x();' }, makeContext(root))).toBeNull();
    // `old` is still there: the edit has not happened, even though `new` occurs once.
    expect(await editFileTool.recover!({ path: 'b.js', old: 'a();', new: 'b();' }, makeContext(root))).toBeNull();
    // A deletion cannot be told from a file that never had the text.
    expect(await editFileTool.recover!({ path: 'empty.js', old: 'x();', new: '' }, makeContext(root))).toBeNull();
    expect(await editFileTool.recover!({ path: 'latin1.txt', old: 'x', new: 'c' }, makeContext(root))).toBeNull();
  });
});

describe("edit_file with the run's syntax checker", () => {
  it('sends every check of a run to the checker in the tool context (one warm python3), with the same verdicts', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'm.py': 'def f():\n    return 1\n' });
    const warm = createSyntaxChecker();
    const checked: string[] = [];
    const syntax = {
      check: (name: string, source: string) => {
        checked.push(name);
        return warm.check(name, source);
      },
      close: () => warm.close(),
    };
    try {
      const context = { ...makeContext(root), syntax };
      expect((await editFileTool.execute({ path: 'm.py', old: 'return 1', new: 'return 2' }, context)).ok).toBe(true);
      const refused = await editFileTool.execute({ path: 'm.py', old: '    return 2', new: 'return 2' }, context);
      expect(refused.content).toMatch(/^Edit rejected, file unchanged\. Syntax error:\nm\.py:2:1: IndentationError: expected an indented block/);
      // The rejected edit is checked twice (after, then before, to tell a new error from an old one).
      expect(checked).toEqual(['m.py', 'm.py', 'm.py']);
    } finally {
      syntax.close();
    }
  });
});

describe('edit_file and what it holds', () => {
  it("refuses rein's own files before reading them: an `old` that is not there still gets the refusal, not a count", async () => {
    const root = makeTempDir();
    writeFiles(root, { 'rein.config.mjs': 'export default {};\n', 'cfg/rules.mjs': 'export default {};\n' });
    await expect(edit(root, 'rein.config.mjs', 'not in the file', 'x')).rejects.toThrow(/belongs to rein/);
    const protectedFiles = [path.join(root, 'cfg/rules.mjs')];
    await expect(editFileTool.execute({ path: 'cfg/rules.mjs', old: 'not in the file', new: 'x' }, makeContext(root, { protectedFiles }))).rejects.toThrow(
      /belongs to rein/,
    );
  });

  it('closes every file and directory it opened, for an edit and for a recovery', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'src/a.txt': 'count = 0\n' });
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const before = open();
    for (let edit = 0; edit < 10; edit++) {
      const result = await editFileTool.execute({ path: 'src/a.txt', old: `count = ${edit}`, new: `count = ${edit + 1}` }, makeContext(root));
      expect(result.ok).toBe(true);
      expect(await editFileTool.recover!({ path: 'src/a.txt', old: `count = ${edit}`, new: `count = ${edit + 1}` }, makeContext(root))).not.toBeNull();
    }
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('count = 10\n');
    // Ten edits and ten recoveries: a descriptor left open by any of them would add at least ten.
    expect(open()).toBeLessThan(before + 5);
  });
});

describe('edit_file when its directory is moved while it writes', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Edits cfg/a.txt; right after the temporary file is written (before the rename), `cfg` is renamed to `to`. */
  function editWhileMoving(to: string, protectedFiles: (root: string) => string[] = () => [], hidden: string[] = []) {
    const root = makeTempDir();
    writeFiles(root, { 'cfg/a.txt': 'x = 1\n', '.rein/runs/keep': '' });
    const write = fs.writeFileSync;
    vi.spyOn(fs, 'writeFileSync').mockImplementation((...args: Parameters<typeof fs.writeFileSync>) => {
      write(...args);
      if (typeof args[0] === 'number') fs.renameSync(path.join(root, 'cfg'), path.join(root, to));
    });
    const context = makeContext(root, { protectedFiles: protectedFiles(root), policy: { hidden } });
    return { root, outcome: editFileTool.execute({ path: 'cfg/a.txt', old: 'x = 1', new: 'x = 2' }, context) };
  }

  it("refuses the rename when the directory now lies in rein's own .rein folder, and leaves no temporary file", async () => {
    const { root, outcome } = editWhileMoving('.rein/cfg');
    await expect(outcome).rejects.toThrow(/belongs to rein/);
    expect(fs.readdirSync(path.join(root, '.rein/cfg'))).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(root, '.rein/cfg/a.txt'), 'utf8')).toBe('x = 1\n');
  });

  it('refuses the rename when the file would now be a protected one (the rules file given with --config)', async () => {
    const { root, outcome } = editWhileMoving('rules', (root) => [path.join(root, 'rules', 'a.txt')]);
    await expect(outcome).rejects.toThrow(/belongs to rein/);
    expect(fs.readdirSync(path.join(root, 'rules'))).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(root, 'rules/a.txt'), 'utf8')).toBe('x = 1\n');
  });

  it('refuses the rename when the directory now matches a pattern that hides directories only', async () => {
    const { root, outcome } = editWhileMoving('secret', () => [], ['secret/']);
    await expect(outcome).rejects.toThrow(/"cfg\/a\.txt" is hidden from the agent/);
    expect(fs.readFileSync(path.join(root, 'secret/a.txt'), 'utf8')).toBe('x = 1\n');
  });

  it('writes through the moved directory when nothing there is protected (the check is what refuses, not the move)', async () => {
    const { root, outcome } = editWhileMoving('elsewhere');
    // The edit lands; echoing it back by its old name then finds nothing there.
    await expect(outcome).rejects.toThrow(/cfg\/a\.txt does not exist/);
    expect(fs.readFileSync(path.join(root, 'elsewhere/a.txt'), 'utf8')).toBe('x = 2\n');
  });
});
