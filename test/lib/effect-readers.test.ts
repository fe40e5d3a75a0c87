import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type EffectDataReaders, type EffectReaders, isEffectKind, readEffect, readEffectData, type ToolEffect } from '../../lib/tool-effect.js';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// Tool effects are read through exhaustive maps (lib/tool-effect.ts): tsc -p tsconfig.test.json checks the
// expect-error directive below, so a map that misses a kind (a new kind nobody handles yet) fails the type check.

const kindOf: EffectReaders<string> = {
  read: (effect) => `read ${effect.path}`,
  search: (effect) => `search ${effect.pattern}`,
  edit: (effect) => `edit ${effect.path} ${effect.applied}`,
  command: (effect) => `command ${effect.command} ${effect.exitCode}`,
  job: (effect) => `job ${effect.action}`,
  todo: (effect) => `todo ${effect.items.length}`,
  finish: (effect) => `finish ${effect.summary}`,
  none: () => 'none',
  mcp: (effect) => `mcp ${effect.server}/${effect.tool} ${effect.outcome}`,
};

// @ts-expect-error a map without a reader for every kind (here: none) does not type-check
const partial: EffectReaders<string> = { ...kindOf, none: undefined };

const kindOfData: EffectDataReaders<string> = {
  read: (effect) => `read ${String(effect.path)}`,
  search: () => 'search',
  edit: (effect) => `edit ${String(effect.applied)}`,
  command: (effect) => `command ${String(effect.exitCode)}`,
  job: () => 'job',
  todo: () => 'todo',
  finish: () => 'finish',
  mcp: () => 'mcp',
  none: () => 'none',
};

// @ts-expect-error the same for effects read back from a trace: a map without the kind mcp does not type-check
const partialData: EffectDataReaders<string> = {
  read: kindOfData.read,
  search: kindOfData.search,
  edit: kindOfData.edit,
  command: kindOfData.command,
  job: kindOfData.job,
  todo: kindOfData.todo,
  finish: kindOfData.finish,
  none: kindOfData.none,
};

describe('reading tool effects through an exhaustive map', () => {
  it('each effect goes to the reader of its kind, narrowed to that kind', () => {
    const effects: ToolEffect[] = [
      { kind: 'edit', path: 'a.py', applied: true },
      { kind: 'command', command: 'npm test', exitCode: 1, timedOut: false, blocked: false },
      { kind: 'none' },
    ];
    expect(effects.map((effect) => readEffect(effect, kindOf))).toEqual(['edit a.py true', 'command npm test 1', 'none']);
    expect(partial.read({ kind: 'read', path: 'x' })).toBe('read x');
  });

  it('an effect read back from a trace goes to the reader of its kind, or to the one for kinds this rein does not know', () => {
    const unknown = (kind: string) => `unknown ${kind || '(no kind)'}`;
    expect(readEffectData({ kind: 'edit', applied: false }, kindOfData, unknown)).toBe('edit false');
    expect(readEffectData({ kind: 'http', status: 200 }, kindOfData, unknown)).toBe('unknown http');
    // Inherited names are not kinds: a hostile trace cannot reach Object.prototype through the map.
    expect(readEffectData({ kind: 'toString' }, kindOfData, unknown)).toBe('unknown toString');
    expect(readEffectData({ kind: 7 }, kindOfData, unknown)).toBe('unknown (no kind)');
    expect(['read', 'mcp', 'none', 'constructor', '', 3].map(isEffectKind)).toEqual([true, true, true, false, false, false]);
    expect(partialData.read({ path: 'y' })).toBe('read y');
  });
});

// Every reader of tool effects in rein's code, and how many exhaustive maps it holds.
const READERS: Record<string, number> = {
  'cli/status-line.ts': 1,
  'visualizer/page/event-format.ts': 1,
  'telemetry/call-attributes.ts': 1,
  'machines/stall/counters.ts': 2,
  'machines/facts.ts': 1,
  'cli/replay/formats/rein-trace.ts': 1,
  'lib/tool-effect.ts': 1,
};

/** A copy of rein's sources (node_modules linked) where `edit` rewrites some files, type-checked with rein's compiler options. */
function typeCheckCopy(roots: string[], edit: (path: string, text: string) => string): string {
  const copy = makeTempDir('rein-effect-kinds-');
  for (const name of readdirSync(repoRoot)) {
    if (['node_modules', 'dist', 'test', '.git', 'coverage-report', 'reports'].includes(name) || name.startsWith('.')) continue;
    cpSync(join(repoRoot, name), join(copy, name), { recursive: true });
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
  for (const root of roots) writeFileSync(join(copy, root), edit(root, readFileSync(join(copy, root), 'utf8')));
  // The test config's options, `paths` included: the packages import the core and each other by name, from source.
  writeFileSync(join(copy, 'tsconfig.check.json'), JSON.stringify({ extends: './tsconfig.test.json', include: [], files: roots }));
  const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.check.json'], { cwd: copy, encoding: 'utf8' });
  return `${tsc.stdout}${tsc.stderr}`;
}

describe('every reader of tool effects is exhaustive', () => {
  it('dropping the reader of one kind from any of them fails tsc in that file', () => {
    const roots = Object.keys(READERS);
    const dropped = new Map<string, number>();
    const output = typeCheckCopy(roots, (path, text) => {
      const lines = text.split('\n');
      const kept = lines.filter((line) => !/^\s+none: /.test(line));
      dropped.set(path, lines.length - kept.length);
      return kept.join('\n');
    });
    for (const [path, maps] of Object.entries(READERS)) {
      expect(dropped.get(path), `${path}: its map's entries for 'none'`).toBe(maps);
      const errors = output.split('\n').filter((line) => line.startsWith(`${path}(`) && line.includes("'none'"));
      expect(errors.length, `${path}:\n${output}`).toBe(maps);
    }
  }, 120_000);
});
