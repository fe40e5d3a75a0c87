import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintRules, sameFingerprint } from '../../../rules/trust/index.js';
import { makeTempDir, writeFiles } from '../../helpers/workspace.js';

const RULES = [
  'import steps from "./lib/helper.mjs";',
  'import pkg from "pkg";',
  'import fs from "node:fs";',
  'const extra = await import(`./lib/dyn-${steps}.mjs`);',
  'export default { budgets: { maxSteps: steps + pkg + extra.default } };',
].join('\n');

function repo(): string {
  const ws = fs.realpathSync(makeTempDir('rein-fp-'));
  writeFiles(ws, {
    'rein.config.mjs': RULES,
    'lib/helper.mjs': 'export default 3;\n',
    'lib/dyn-a.mjs': 'export default 1;\n',
    'node_modules/pkg/package.json': '{"name":"pkg","main":"index.js"}',
    'node_modules/pkg/index.js': 'module.exports = require("./other");\n',
    'node_modules/pkg/other.js': 'module.exports = 2;\n',
    'unrelated.mjs': 'export default 0;\n',
  });
  return ws;
}

describe('the fingerprint of a rules module', () => {
  it('hashes the file and every workspace module it imports (its own helpers, dynamic imports of a template path, packages in node_modules), nothing else', async () => {
    const ws = repo();
    const { modules } = await fingerprintRules(path.join(ws, 'rein.config.mjs'), ws);
    const names = Object.keys(modules).map((file) => path.relative(ws, file));
    expect(names).toEqual(expect.arrayContaining(['lib/dyn-a.mjs', 'lib/helper.mjs', 'node_modules/pkg/index.js', 'node_modules/pkg/other.js']));
    expect(names).not.toContain('unrelated.mjs');
    expect(names).not.toContain('rein.config.mjs');
  });

  it('changes when any imported module changes, also one a package requires', async () => {
    for (const changed of ['lib/helper.mjs', 'node_modules/pkg/other.js', 'lib/dyn-a.mjs']) {
      const ws = repo();
      const file = path.join(ws, 'rein.config.mjs');
      const before = await fingerprintRules(file, ws);
      fs.appendFileSync(path.join(ws, changed), 'globalThis.pwned = true;\n');
      expect(sameFingerprint(before, await fingerprintRules(file, ws)), changed).toBe(false);
    }
  });

  it('stays the same when a file it does not import changes', async () => {
    const ws = repo();
    const file = path.join(ws, 'rein.config.mjs');
    const before = await fingerprintRules(file, ws);
    fs.appendFileSync(path.join(ws, 'unrelated.mjs'), '// edited\n');
    expect(sameFingerprint(before, await fingerprintRules(file, ws))).toBe(true);
  });

  it('a module it cannot resolve is a usage error, not a guess', async () => {
    const ws = fs.realpathSync(makeTempDir('rein-fp-'));
    writeFiles(ws, { 'rein.config.mjs': 'import x from "./missing.mjs";\nexport default x;\n' });
    await expect(fingerprintRules(path.join(ws, 'rein.config.mjs'), ws)).rejects.toThrow(
      /cannot be loaded .*\n.*Could not resolve ".\/missing.mjs" \(no such file/,
    );
  });
});
