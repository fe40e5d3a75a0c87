import { describe, expect, it } from 'vitest';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { defaultRules, rulesSchema } from '../../rules/schema.js';
import type { Box, StatechartGraph } from '../../visualizer/server/graph-types.js';
import { toMermaid } from '../../visualizer/server/mermaid.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { stateIds } from './browser.js';

const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
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
    expect(
      graph.nodes
        .filter((node) => node.kind === 'final')
        .map((node) => node.id)
        .sort(),
    ).toEqual(['budget', 'done', 'failed', 'stalled', 'step_limit', 'timeout']);
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
    expect(gate.map((transition) => transition.label)).toEqual(['[testsPassedSinceLastEdit(runs=1)]', '[else]']);
    // A transition across a phase border is drawn between the phases; into a final, from the phase.
    expect(gate[0]!.edge).toBe('verify->done');
    expect(graph.transitions.find((transition) => transition.source === 'build.think' && transition.guard?.name === 'hasToolCalls')!.label).toBe(
      'done [hasToolCalls]',
    );
    expect(graph.transitions.find((transition) => transition.source === 'build.review' && transition.guard?.name === 'repeatedAction')!.label).toBe(
      '[repeatedAction(limit=3)]',
    );
    expect(graph.transitions.find((transition) => transition.source === graph.machineId && transition.event === 'clock.expired')).toMatchObject({
      target: 'timeout',
      edge: `${graph.machineId}->timeout`,
    });
    expect(JSON.parse(JSON.stringify(graph))).toEqual(graph);
  });

  it('follows the rules: a disabled phase or stall detector changes the drawing, nothing is hand-kept', async () => {
    const rules = rulesSchema.parse({
      phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } },
      stall: { enabled: false },
    });
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
    expect(text).toMatch(/verify_gate --> done : \[testsPassedSinceLastEdit\(runs=1\)\]/);
    expect(text).toMatch(/verify_think --> verify_act : model\.done \[hasToolCalls\]/);
    expect(text).toContain('[repeatedAction(limit=3)]');
    expect(text).toContain(`state "any state" as harness\n  harness --> timeout : clock.expired`);
    for (const final of ['done', 'step_limit', 'timeout', 'budget', 'stalled', 'failed']) expect(text).toContain(`  ${final} --> [*]`);
    // Labels never carry a colon after the arrow's own, which Mermaid would misread.
    for (const line of text.split('\n').filter((candidate) => candidate.includes('-->'))) expect(line.split(' : ').length, line).toBeLessThanOrEqual(2);
  });
});

describe('the phase level', () => {
  const machine = createHarnessMachine(defaultRules());
  let graph: StatechartGraph;
  const phases = ['plan', 'build', 'verify', 'fix'];
  const finals = ['done', 'step_limit', 'timeout', 'budget', 'stalled', 'failed'];

  it('draws the phases as boxes with the ways a run ends beside them, and no state inside a phase', async () => {
    graph = await buildStatechartGraph(machine);
    const { overview } = graph.levels;
    expect(Object.keys(overview.boxes).sort()).toEqual([...phases, ...finals, graph.machineId].sort());
    const boxes = Object.entries(overview.boxes);
    for (const [index, [a, boxA]] of boxes.entries()) for (const [b, boxB] of boxes.slice(index + 1)) expect(overlap(boxA, boxB), `${a} / ${b}`).toBe(false);
    // Phases top to bottom in the machine's order; the finals in a column to their right.
    const tops = phases.map((phase) => overview.boxes[phase]!.y);
    expect([...tops].sort((a, b) => a - b)).toEqual(tops);
    const phasesRight = Math.max(...phases.map((phase) => overview.boxes[phase]!.x + overview.boxes[phase]!.width));
    for (const final of finals) expect(overview.boxes[final]!.x, final).toBeGreaterThan(phasesRight);
    for (const [id, route] of Object.entries(overview.routes)) {
      const edge = graph.edges.find((candidate) => candidate.id === id)!;
      expect(overview.boxes[edge.source], id).toBeDefined();
      expect(overview.boxes[edge.target], id).toBeDefined();
      expect(route.points.length, id).toBeGreaterThanOrEqual(2);
    }
  });

  it('labels each arrow between phases with the exit guards that can take it, from the rules', async () => {
    graph ??= await buildStatechartGraph(machine);
    const label = (id: string) => graph.levels.overview.routes[id]?.label?.text;
    expect(label('plan->build')).toBe('todoWritten\neditMade');
    expect(label('build->verify')).toBe('testRun\nfinishRefused');
    expect(label('verify->fix')).toBe('testFailed');
    expect(label('fix->verify')).toBe('testedAfterEdit');
    // Into a final the arrow is labelled only when taken (the page writes it under the final).
    expect(graph.levels.overview.routes['build->done']!.label).toBeNull();
    const custom = await buildStatechartGraph(
      createHarnessMachine(rulesSchema.parse({ phases: { plan: { exits: [{ guard: 'todoProgress', count: 2, to: 'build' }] } } })),
    );
    expect(custom.levels.overview.routes['plan->build']!.label!.text).toBe('todoProgress(count=2)');
  });

  it('opens one phase on its turn cycle inside its box, the other phases staying closed', async () => {
    graph ??= await buildStatechartGraph(machine);
    expect(Object.keys(graph.levels.open).sort()).toEqual([...phases].sort());
    const open = graph.levels.open.build!;
    const inner = graph.nodes.filter((node) => node.parent === 'build').map((node) => node.id);
    for (const id of inner) expect(inside(open.boxes[id]!, open.boxes.build!), id).toBe(true);
    for (const other of ['plan', 'verify', 'fix']) {
      expect(open.boxes[other], other).toBeDefined();
      expect(
        Object.keys(open.boxes).some((id) => id.startsWith(`${other}.`)),
        other,
      ).toBe(false);
    }
    const cycle = graph.edges.filter((edge) => edge.source.startsWith('build.') && edge.target.startsWith('build.'));
    expect(cycle.length).toBeGreaterThan(5);
    for (const edge of cycle) expect(open.routes[edge.id]?.points.length ?? 0, edge.id).toBeGreaterThanOrEqual(2);
    expect(open.routes['build->verify']!.label!.text).toBe('testRun\nfinishRefused');
  });

  it('says the gate and "stall persists" in words on the chart, keeping the guard name in the label Mermaid uses', async () => {
    graph ??= await buildStatechartGraph(machine);
    const persists = graph.transitions.find((transition) => transition.guard?.name === 'stallPersists')!;
    expect(persists.text).toBe('[a stall persists after 3 nudges]');
    expect(persists.label).toBe('[stallPersists(maxNudges=3)]');
    expect(graph.transitions.find((transition) => transition.guard?.name === 'testsPassedSinceLastEdit')!.text).toBe('[tests passed since the last edit]');
    expect(graph.transitions.find((transition) => transition.guard?.name === 'readLoop')!.text).toBe('[readLoop(limit=5)]');
  });
});

describe('layouts are shared within a process', () => {
  it('the same machine, built again from the same rules, gets the same layout object; another machine its own', async () => {
    const first = await buildStatechartGraph(createHarnessMachine(defaultRules()));
    const again = await buildStatechartGraph(createHarnessMachine(defaultRules()));
    expect(again).toBe(first);
    const noPlan = rulesSchema.parse({ phases: { plan: { enabled: false } } });
    const other = await buildStatechartGraph(createHarnessMachine(noPlan));
    expect(other).not.toBe(first);
    expect(other.nodes.map((node) => node.id)).not.toEqual(first.nodes.map((node) => node.id));
  });
});
