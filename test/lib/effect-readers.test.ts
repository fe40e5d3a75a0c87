import { describe, expect, it } from 'vitest';
import { type EffectReaders, readEffect, type ToolEffect } from '../../lib/tool-effect.js';

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
});
