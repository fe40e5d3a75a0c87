import { describe, expect, it } from 'vitest';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { defaultRules, rulesSchema } from '../../rules/schema.js';
import type { Box, StatechartGraph } from '../../visualizer/server/graph-types.js';
import { toMermaid } from '../../visualizer/server/mermaid.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { stateIds } from './browser.js';

const inside = (inner: Box, outer: Box) => inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('the statechart graph, built from the machine definition', () => {
  let graph: StatechartGraph;
  const machine = createHarnessMachine(defaultRules());

  it('has a laid-out node for every state of the machine, children inside their parents, leaves apart', async () => {
    graph = await buildStatechartGraph(machine);
    const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
    for (const id of stateIds(machine)) {
      const node = nodes.get(id);
      expect(node, id).toBeDefined();
      expect(node!.width * node!.height, id).toBeGreaterThan(0);
      const parent = node!.parent === graph.machineId ? undefined : nodes.get(node!.parent!);
      if (parent) expect(inside(node!, parent), `${id} inside ${parent.id}`).toBe(true);
    }
    const leaves = graph.nodes.filter((node) => node.kind !== 'compound' && node.width > 0);
    for (const [index, a] of leaves.entries()) for (const b of leaves.slice(index + 1)) expect(overlap(a, b), `${a.id} / ${b.id}`).toBe(false);
    expect(graph.nodes.filter((node) => node.kind === 'final').map((node) => node.id).sort()).toEqual(['budget', 'done', 'failed', 'stalled', 'step_limit', 'timeout']);
    expect(nodes.get('build')).toMatchObject({ kind: 'compound', initial: 'build.observe' });
    expect(nodes.get('build.think')!.invokes).toEqual(['model']);
  });

  it('routes every transition that has a target along a drawn arrow, labelled with its event and guard', async () => {
    graph ??= await buildStatechartGraph(machine);
    const edges = new Map(graph.edges.map((edge) => [edge.id, edge]));
    for (const transition of graph.transitions.filter((candidate) => candidate.target !== null)) {
      const edge = edges.get(transition.edge!);
      expect(edge?.points.length ?? 0, transition.id).toBeGreaterThanOrEqual(2);
      expect(edge!.transitions).toContain(transition.id);
    }
    const gate = graph.transitions.filter((transition) => transition.source === 'verify.gate');
    expect(gate.map((transition) => [transition.guard?.name ?? null, transition.target, transition.actions])).toEqual([
      ['testsPassedSinceLastEdit', 'done', ['acceptFinish']],
      [null, 'verify.afterTools', ['refuseFinish']],
    ]);
    expect(gate.map((transition) => transition.label)).toEqual(['[testsPassedSinceLastEdit]', '[else]']);
    // A transition across a phase border is drawn between the phases; into a final, from the phase.
    expect(gate[0]!.edge).toBe('verify->done');
    expect(graph.transitions.find((transition) => transition.source === 'build.think' && transition.guard?.name === 'hasToolCalls')!.label).toBe('done [hasToolCalls]');
    expect(graph.transitions.find((transition) => transition.source === 'build.review' && transition.guard?.name === 'repeatedAction')!.label).toBe('[repeatedAction(limit: 3)]');
    expect(graph.transitions.find((transition) => transition.source === graph.machineId && transition.event === 'clock.expired')).toMatchObject({ target: 'timeout', edge: `${graph.machineId}->timeout` });
    expect(JSON.parse(JSON.stringify(graph))).toEqual(graph);
  });

  it('follows the rules: a disabled phase or stall detector changes the drawing, nothing is hand-kept', async () => {
    const rules = rulesSchema.parse({ phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } }, stall: { enabled: false } });
    const smaller = await buildStatechartGraph(createHarnessMachine(rules));
    const ids = smaller.nodes.map((node) => node.id);
    expect(ids).not.toContain('fix');
    expect(ids).not.toContain('fix.think');
    expect(smaller.transitions.some((transition) => transition.guard?.name === 'repeatedAction')).toBe(false);
    expect(smaller.transitions.some((transition) => transition.target === 'stalled')).toBe(false);
  });
});

describe('toMermaid', () => {
  it('writes a stateDiagram-v2 with nested phases, guards on the labels and every final state', () => {
    const machine = createHarnessMachine(defaultRules());
    const text = toMermaid(machine);
    expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
    for (const phase of ['plan', 'build', 'verify', 'fix']) expect(text).toContain(`state ${phase} {`);
    for (const id of stateIds(machine)) expect(text, id).toContain(id.replace(/\./g, '_'));
    expect(text).toMatch(/verify_gate --> done : \[testsPassedSinceLastEdit\]/);
    expect(text).toMatch(/verify_think --> verify_act : model\.done \[hasToolCalls\]/);
    expect(text).toContain('[repeatedAction(limit=3)]');
    expect(text).toContain(`state "any state" as harness\n  harness --> timeout : clock.expired`);
    for (const final of ['done', 'step_limit', 'timeout', 'budget', 'stalled', 'failed']) expect(text).toContain(`  ${final} --> [*]`);
    // Labels never carry a colon after the arrow's own, which Mermaid would misread.
    for (const line of text.split('\n').filter((candidate) => candidate.includes('-->'))) expect(line.split(' : ').length, line).toBeLessThanOrEqual(2);
  });
});
