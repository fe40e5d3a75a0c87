import { describe, expect, it } from 'vitest';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { rulesSchema } from '../../rules/schema.js';
import { toMermaid } from '../../visualizer/server/mermaid.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { stateIds } from './browser.js';

describe('hook states on the visualizer chart (visualizer/server/statechart-graph.ts)', () => {
  it('every hook moment is a drawn state that invokes the hooks actor; end states with runEnd hooks lead to a final `ended`', {
    timeout: 120_000,
  }, async () => {
    const hook = [{ command: 'true' }];
    const machine = createHarnessMachine(
      rulesSchema.parse({ hooks: { preToolUse: hook, postToolUse: hook, phaseChange: hook, beforeFinish: hook, runEnd: hook } }),
    );
    const graph = await buildStatechartGraph(machine);
    const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
    for (const id of stateIds(machine)) expect(nodes.get(id), id).toBeDefined();
    expect(nodes.get('build.preToolHook')!.invokes).toEqual(['hooks']);
    expect(nodes.get('build.postToolHook')!.invokes).toEqual(['hooks']);
    expect(nodes.get('build.phaseHook')!.invokes).toEqual(['hooks']);
    expect(nodes.get('verify.settleHook')!.invokes).toEqual(['hooks']);
    expect(nodes.get('verify.finishHook')!.invokes).toEqual(['hooks']);
    expect(nodes.get('done')!.invokes).toEqual(['hooks']);
    expect(nodes.get('ended')!.kind).toBe('final');
    const mermaid = toMermaid(machine);
    expect(mermaid).toMatch(/postToolHook/);
    expect(mermaid).toMatch(/ended/);
  });
});
