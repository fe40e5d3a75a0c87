import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reinBin, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// The launcher's sh line starts node with a small young generation (V8 reads the flag only at start-up). A preload
// in NODE_OPTIONS reports the node process's own flags, so each test sees what V8 was started with.
function launch(command: string, args: string[], nodeOptions = ''): string[] {
  const dir = makeTempDir('rein-launcher-');
  const report = join(dir, 'exec-argv.json');
  const preload = join(dir, 'report.mjs');
  writeFileSync(preload, `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(report)}, JSON.stringify(process.execArgv));\n`);
  const result = spawnSync(command, [...args, '--help'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: `${nodeOptions} --import=${pathToFileURL(preload).href}`.trim(),
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toContain('rein');
  return JSON.parse(readFileSync(report, 'utf8')) as string[];
}

describe('the rein launcher', () => {
  it('starts node with 2 MB semi-spaces when run as a command', () => {
    expect(launch(reinBin, [])).toEqual(['--max-semi-space-size=2']);
  });

  it('does the same through the bin link npm makes', () => {
    expect(launch(join(repoRoot, 'node_modules', '.bin', 'rein'), [])).toEqual(['--max-semi-space-size=2']);
  });

  it('leaves the semi-spaces to a NODE_OPTIONS that sizes them', () => {
    expect(launch(reinBin, [], '--max-semi-space-size=8')).toEqual([]);
  });

  it('runs under node itself as plain JavaScript, with node’s own flags', () => {
    expect(launch(process.execPath, [reinBin])).toEqual([]);
    expect(launch(process.execPath, ['--max-semi-space-size=4', reinBin])).toEqual(['--max-semi-space-size=4']);
  });
});
