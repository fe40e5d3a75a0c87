import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoScript, DEMO_TASK, DEMO_TEST_CMD } from '../../demo/demo-model.js';
import { createHarnessMachine, defaultRules, runScripted, type ScriptedRunResult } from '../../testing/index.js';
import { ChartIndex } from '../../visualizer/page/chart-index.js';
import { toEntry } from '../../visualizer/page/entries.js';
import { describeEntry } from '../../visualizer/page/event-format.js';
import { Timeline } from '../../visualizer/page/timeline.js';
import type { StatechartGraph } from '../../visualizer/server/graph-types.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { loadTrace } from '../../visualizer/server/trace-file.js';
import { demoRepoFiles } from '../helpers/demo-files.js';
import { makeTempDir } from '../helpers/workspace.js';
import { expectedStates } from './browser.js';

let run: ScriptedRunResult;
let graph: StatechartGraph;
let lines: Array<Record<string, unknown>>;

beforeAll(async () => {
  run = await runScripted({ files: demoRepoFiles(), task: DEMO_TASK, testCmd: DEMO_TEST_CMD, script: demoScript });
  lines = run.trace as unknown as Array<Record<string, unknown>>;
  graph = await buildStatechartGraph(createHarnessMachine(defaultRules()));
});

function timelineOf(values: unknown[]): Timeline {
  const timeline = new Timeline(new ChartIndex(graph));
  values.forEach((value) => timeline.append(value));
  return timeline;
}

describe('replaying a trace on the chart', () => {
  it('the state at every index is the target of the last transition at or before it', () => {
    const timeline = timelineOf(lines);
    const expected = expectedStates(lines);
    lines.forEach((_, index) => expect(timeline.moment(index).state ?? '', `index ${index}`).toBe(expected[index]));
    expect(timeline.moment(lines.length - 1)).toMatchObject({ state: 'done', status: 'done', step: 9 });
  });

  it('matches every transition line to the machine transition it took, with the guards that refused before it', () => {
    const chart = new ChartIndex(graph);
    for (const line of lines.filter((candidate) => candidate.kind === 'transition' && candidate.from !== '')) {
      const match = chart.match({ from: String(line.from), to: String(line.to), event: String(line.event), ...(line.guard ? { guard: String(line.guard) } : {}) });
      expect(match.transition, JSON.stringify(line)).not.toBeNull();
      expect(match.transition!.guard?.name ?? null).toBe((line.guard as string | undefined) ?? null);
    }
    const refusal = lines.find((line) => Array.isArray(line.actions) && line.actions.includes('refuseFinish'))!;
    const match = chart.match({ from: String(refusal.from), to: String(refusal.to), event: String(refusal.event) });
    expect(match.transition!.label).toBe('[else]');
    expect(match.refused.map((transition) => transition.guard?.name)).toEqual(['testsPassedSinceLastEdit']);
    expect(match.refused[0]!.edge).toBe(`${String(refusal.from).split('.')[0]}->done`);
  });

  it('keeps running totals for the gauges and counts how often each state was entered', () => {
    const timeline = timelineOf(lines);
    const end = timeline.moment(lines.length - 1);
    const models = lines.filter((line) => line.kind === 'model');
    const usage = (key: string) => models.reduce((sum, line) => sum + Number((line.usage as Record<string, number>)[key]), 0);
    expect(end).toMatchObject({ prompt: usage('promptTokens'), completion: usage('completionTokens'), cached: usage('cachedTokens') });
    expect(end.contextTokens).toBe((models.at(-1)!.usage as Record<string, number>).promptTokens);
    expect(end.elapsed).toBeCloseTo(Number(lines.at(-1)!.t) - Number(lines[0]!.t), 5);
    const visits = timeline.visits(lines.length - 1);
    expect(visits.states.get('verify')).toBe(2);
    expect(visits.states.get('done')).toBe(1);
    expect(timeline.marks.filter((mark) => mark.tone === 'refusal')).toHaveLength(1);
    expect(timeline.segments.map((segment) => segment.phase)).toEqual(['plan', 'build', 'verify', 'fix', 'verify', 'done']);
  });

  it('reads the gate refusal, a failed tool call and a model call the way the list shows them', () => {
    const timeline = timelineOf(lines);
    const rows = timeline.entries.map((entry) => describeEntry(entry, entry.kind === 'transition' ? timeline.matchOf(entry) : null));
    expect(rows.find((row) => row.tone === 'refusal')!.text).toMatch(/^gate refused finish/);
    expect(rows.find((row) => row.tone === 'failed')!.text).toBe('edit_file stats.js  (failed)');
    expect(rows.find((row) => row.badge === 'model')!.meta).toMatch(/^\d+ in · \d+ out/);
    const gateStep = rows.find((row) => row.text.includes('.gate →') && row.text.includes('✗'));
    expect(gateStep?.text).toMatch(/✗ testsPassedSinceLastEdit$/);
  });
});

describe('traces from other versions, killed runs and damaged files', () => {
  it('turns anything JSON into an entry: unknown kinds and non-objects are kept raw, nothing throws', () => {
    const odd = [42, null, 'text', [1, 2], { kind: 'teleport', to: 'mars' }, { nokind: true }, { kind: 'model', usage: 'lots', step: 'x' }, { kind: 'transition' }];
    const timeline = timelineOf([lines[0], ...odd]);
    expect(timeline.entries.map((entry) => entry.kind)).toEqual(['start', '(no kind)', '(no kind)', '(no kind)', '(no kind)', 'teleport', '(no kind)', 'model', 'transition']);
    expect(timeline.entries.filter((entry) => !entry.known)).toHaveLength(6);
    const row = describeEntry(toEntry({ kind: 'teleport', to: 'mars', i: 3, t: 1 }, 0), null);
    expect(row).toMatchObject({ tone: 'unknown', badge: 'teleport', text: '{"to":"mars"}' });
    expect(() => timeline.entries.map((entry) => describeEntry(entry, null))).not.toThrow();
    expect(timeline.moment(timeline.length - 1).state).toBeNull();
  });

  it('reports a cut last line and corrupt lines, and falls back to the default rules when the start line has none', () => {
    const dir = makeTempDir('rein-viz-trace-');
    const path = join(dir, 'trace.jsonl');
    const { rules: _rules, ...oldStart } = lines[0]!;
    const body = [JSON.stringify({ ...oldStart, version: 0 }), ...lines.slice(1, 20).map((line) => JSON.stringify(line)), '{"kind":"warp","i":20}', 'not json at all', JSON.stringify(lines[20]).slice(0, 30)];
    writeFileSync(path, body.join('\n'));
    const trace = loadTrace(path);
    expect(trace.lines).toHaveLength(21);
    const notes = trace.notes.map((note) => note.text).join('\n');
    expect(notes).toContain('Line 22 is not valid JSON');
    expect(notes).toContain('Line 23 is incomplete (the run was killed mid-write, or is still writing it)');
    expect(notes).toContain('carries no rules');
    expect(notes).toContain('Trace format version 0');
    expect(notes).toContain('warp ×1');
    expect(trace.machine.root.states.plan).toBeDefined();
  });

  it('keeps the run\'s own rules when they parse, and says so when they do not', () => {
    const dir = makeTempDir('rein-viz-trace-');
    const path = join(dir, 'trace.jsonl');
    writeFileSync(path, `${JSON.stringify({ ...lines[0], rules: { ...(lines[0]!.rules as object), phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } } })}\n`);
    expect(loadTrace(path).machine.root.states.fix).toBeUndefined();
    writeFileSync(path, `${JSON.stringify({ ...lines[0], rules: { budgets: { maxSteps: 'many' } } })}\n`);
    const trace = loadTrace(path);
    expect(trace.notes[0]!.text).toMatch(/do not parse with this rein \(budgets\.maxSteps/);
    expect(trace.rules.budgets.maxSteps).toBe(40);
  });
});

describe('rule action lines', () => {
  it('read as a rule row with what the model was told, filed with the gate and stalls', async () => {
    const { filterOf } = await import('../../visualizer/page/event-filters.js');
    const entry = toEntry({ i: 3, t: 1, kind: 'rule_action', action: 'notify', notices: ['Read the failure first.'], step: 2 }, 3);
    expect(entry.known).toBe(true);
    expect(describeEntry(entry, null)).toMatchObject({ badge: 'rule', text: 'notify: Read the failure first.' });
    expect(filterOf(entry)).toBe('gate');
  });
});

describe('a run with guards and actions from its rules module', () => {
  it('replays with the run\'s own chart: the rules file named in run.json is loaded again', async () => {
    const { startRun } = await import('../../run/start-run.js');
    const { loadRules } = await import('../../config/load-rules.js');
    const { scriptedModelSource } = await import('../../actors/model-source.js');
    const { renderReplayPage } = await import('../../visualizer/server/replay-page.js');
    const { reply, call } = await import('../../testing/index.js');
    const workspace = makeTempDir('rein-viz-custom-');
    writeFileSync(join(workspace, 'a.js'), 'export const a = 1;\n');
    writeFileSync(join(workspace, 'rein.config.mjs'), [
      "export const guards = { readSomething: (context) => context.facts.seq >= 1 };",
      "export const actions = { cheer: () => ({ notices: ['Keep going.'] }) };",
      "export default { phases: { plan: { exits: [{ guard: 'readSomething', to: 'build', actions: [{ action: 'cheer' }] }] } } };",
    ].join('\n'));
    const loaded = await loadRules({ workspace });
    const handle = startRun({
      workspace, task: 'Look around.', testCmd: 'true', rules: { ...loaded.rules, budgets: { ...loaded.rules.budgets, maxSteps: 2 } },
      guards: loaded.guards, actions: loaded.actions, configPath: loaded.configPath!, runDir: join(workspace, 'run'), fsync: false,
      model: scriptedModelSource('scripted', [reply(call('read_file', { path: 'a.js' })), reply(call('read_file', { path: 'a.js' }))]),
    });
    await handle.done;
    const { trace, html } = await renderReplayPage(handle.tracePath);
    expect(trace.notes.map((note) => note.text).join('\n')).not.toMatch(/default rules/);
    expect(trace.rules.phases.plan.exits[0]!.guard).toBe('readSomething');
    expect(html).toContain('readSomething');
  });
});
