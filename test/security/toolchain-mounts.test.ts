import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planVisibility } from '../../tools/sandbox/plan/visibility.js';
import { makeFakeHome } from '../helpers/fake-home.js';
import { writeFiles } from '../helpers/workspace.js';

// Issue 25, item 6: a repository's own .venv/pyvenv.cfg named any host folder as its Python's home, and the sandbox
// showed that folder as a "toolchain".
describe("a workspace pyvenv.cfg's home", () => {
  const plan = (home: string) => {
    const fake = makeFakeHome();
    writeFiles(fake.workspace, { '.venv/pyvenv.cfg': `home = ${home.replace('~', fake.home)}\n` });
    return { fake, plan: planVisibility({ root: fake.workspace, policy: { network: false }, home: fake.home, env: {}, pathValue: '/usr/bin' }) };
  };

  it.each([
    ['a folder of documents', '~/code/other-repo'],
    ['a credentials folder', '~/.aws'],
    ['a folder above a Python', '~/.pyenv/versions'],
  ])('naming %s shows nothing', (_, home) => {
    expect(plan(home).plan.toolchains).toEqual([]);
  });

  it('naming the bin folder of a real Python shows that installation', () => {
    const { fake, plan: shown } = plan('~/.pyenv/versions/3.12-stand-in/bin');
    expect(shown.toolchains).toEqual([path.join(fake.home, '.pyenv', 'versions', '3.12-stand-in')]);
  });
});
