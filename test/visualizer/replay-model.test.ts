import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../../cli/demo/demo-model.js';
import { createHarnessMachine, defaultRules, runScripted, type ScriptedRunResult } from '../../testing/index.js';
import { ChartIndex } from '../../visualizer/page/chart-index.js';
import { text, toEntry } from '../../visualizer/page/entries.js';
import { filterOf } from '../../visualizer/page/event-filters.js';
import { describeEntry } from '../../visualizer/page/event-format.js';
import { Timeline } from '../../visualizer/page/timeline.js';
import type { StatechartGraph } from '../../visualizer/server/graph-types.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { loadTrace } from '../../visualizer/server/trace-file.js';
import { demoRepoFiles } from '../helpers/demo-files.js';
import { useTempStateDir } from '../helpers/trust.js';
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
  values.forEach((value) => {
    timeline.append(value);
  });
  return timeline;
}

describe('replaying a trace on the chart', () => {
  it("the state at every index is the target of the last transition at or before it, in the timeline's order", () => {
    const timeline = timelineOf(lines);
    const shown = timeline.entries.map((entry) => entry.data);
    const expected = expectedStates(shown);
    shown.forEach((_, index) => {
      expect(timeline.moment(index).state ?? '', `index ${index}`).toBe(expected[index]);
    });
    expect(timeline.moment(lines.length - 1)).toMatchObject({ state: 'done', status: 'done', step: 9 });
    // Nothing is lost or doubled by the reordering.
    expect(shown.map((line) => line.i).sort((a, b) => Number(a) - Number(b))).toEqual(lines.map((line) => line.i));
  });

  it('puts each effect line right after the transition whose action wrote it, whatever order the trace used', () => {
    const refusal = lines.findIndex((line) => line.kind === 'finish' && line.allowed === false);
    const cause = lines.findIndex((line) => Array.isArray(line.actions) && line.actions.includes('refuseFinish'));
    // rein writes the decision right after the transition whose action wrote it; traces of earlier versions wrote it
    // after the phase change it caused, and a trace could put it before its transition too: each order reads the same.
    expect(refusal).toBe(cause + 1);
    const phaseChangeAt = lines.findIndex((line, index) => index > cause && line.guard === 'finishRefused');
    const effectLast = [...lines];
    effectLast.splice(phaseChangeAt + 1, 0, effectLast.splice(refusal, 1)[0]!);
    const effectFirst = [...lines];
    const [moved] = effectFirst.splice(refusal, 1);
    effectFirst.splice(cause, 0, moved!);
    for (const order of [lines, effectLast, effectFirst]) {
      const timeline = timelineOf(order);
      const at = timeline.entries.findIndex((entry) => entry.kind === 'finish' && entry.data.allowed === false);
      const previous = timeline.entries[at - 1]!;
      expect(previous.data.actions).toContain('refuseFinish');
      // The moment of the refusal shows the gate's transition, not the phase change that came of it.
      expect(timeline.moment(at).transition).toBe(previous);
      expect(timeline.moment(at).match!.refused.map((transition) => transition.guard?.name)).toEqual(['testsPassedSinceLastEdit']);
      const phaseChange = timeline.entries.findIndex((entry) => entry.data.guard === 'finishRefused');
      expect(phaseChange).toBeGreaterThan(at);
    }
  });

  it('matches every transition line to the machine transition it took, with the guards that refused before it', () => {
    const chart = new ChartIndex(graph);
    for (const line of lines.filter((candidate) => candidate.kind === 'transition' && candidate.from !== '')) {
      const match = chart.match({
        from: String(line.from),
        to: String(line.to),
        event: String(line.event),
        ...(line.guard ? { guard: String(line.guard) } : {}),
      });
      expect(match.transition, JSON.stringify(line)).not.toBeNull();
      expect(match.transition!.guard?.name ?? null).toBe((line.guard as string | undefined) ?? null);
    }
    const refusal = lines.find((line) => Array.isArray(line.actions) && line.actions.includes('refuseFinish'))!;
    const match = chart.match({ from: String(refusal.from), to: String(refusal.to), event: String(refusal.event) });
    expect(match.transition!.label).toBe('[else]');
    expect(match.refused.map((transition) => transition.guard?.name)).toEqual(['testsPassedSinceLastEdit']);
    expect(match.refused[0]!.edge).toBe(`${String(refusal.from).split('.')[0]}->done`);
  });

  it("marks a transition that took no event of its own as eventless, with the event that started its macrostep, and matches it to the chart's eventless arrow", () => {
    const timeline = timelineOf(lines);
    const transitions = timeline.entries.filter((entry) => entry.kind === 'transition' && text(entry.data, 'from'));
    const eventless = transitions.filter((entry) => entry.data.eventless === true);
    expect(eventless.length).toBeGreaterThan(0);
    expect(eventless.length).toBeLessThan(transitions.length);
    for (const entry of transitions) {
      const taken = timeline.matchOf(entry).transition;
      expect(taken?.event, `${text(entry.data, 'from')} → ${text(entry.data, 'to')}`).toBe(entry.data.eventless === true ? null : entry.data.event);
    }
    expect(describeEntry(eventless[0]!, null).title).toMatch(/ eventless, after xstate\.[\w.]+/);
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
    expect(rows.find((row) => row.tone === 'failed')!.text).toBe('edit_file stats.js → rejected');
    expect(rows.find((row) => row.text.startsWith('run node --test'))!.text).toBe('run node --test → exit 1');
    expect(rows.find((row) => row.badge === 'model')!.meta).toMatch(/^\d+ in · \d+ out/);
    const gateStep = rows.find((row) => row.text.includes(': gate →') && row.text.includes('✗'));
    expect(gateStep?.text).toMatch(/✗ testsPassedSinceLastEdit → else$/);
    // A phase change names the phases and the exit guard that held; the event is left to the tooltip.
    expect(rows.find((row) => row.badge === 'phase' && row.text.startsWith('plan → build'))).toMatchObject({ text: 'plan → build  ✓ todoWritten', meta: '' });
  });
});

describe('traces from other versions, killed runs and damaged files', () => {
  it('turns anything JSON into an entry: unknown kinds and non-objects are kept raw, nothing throws', () => {
    const odd = [
      42,
      null,
      'text',
      [1, 2],
      { kind: 'teleport', to: 'mars' },
      { nokind: true },
      { kind: 'model', usage: 'lots', step: 'x' },
      { kind: 'transition' },
    ];
    const timeline = timelineOf([lines[0], ...odd]);
    expect(timeline.entries.map((entry) => entry.kind)).toEqual([
      'start',
      '(no kind)',
      '(no kind)',
      '(no kind)',
      '(no kind)',
      'teleport',
      '(no kind)',
      'model',
      'transition',
    ]);
    expect(timeline.entries.filter((entry) => !entry.known)).toHaveLength(6);
    const row = describeEntry(toEntry({ kind: 'teleport', to: 'mars', i: 3, t: 1 }, 0), null);
    expect(row).toMatchObject({ tone: 'unknown', badge: 'teleport', text: '{"to":"mars"}' });
    expect(() => timeline.entries.map((entry) => describeEntry(entry, null))).not.toThrow();
    expect(timeline.moment(timeline.length - 1).state).toBeNull();
  });

  it("shows what the stall detector counted as new right after the transition that folded the turn's results, in words, under its own filter", () => {
    const timeline = timelineOf(lines);
    const progress = timeline.entries.filter((entry) => entry.kind === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const entry of progress) {
      const at = timeline.entries.indexOf(entry);
      expect(timeline.entries[at - 1]!.data.actions).toContain('recordResults');
      expect(filterOf(entry)).toBe('progress');
    }
    const edit = progress.find((entry) => JSON.stringify(entry.data).includes('edit_file'))!;
    expect(describeEntry(edit, null)).toMatchObject({
      badge: 'progress',
      text: expect.stringMatching(/^new to the stall detector: .*edit_file: new output, a file state not seen before/),
    });
    const words = describeEntry(
      toEntry(
        {
          i: 1,
          t: 1,
          kind: 'progress',
          step: 4,
          results: [
            { id: 'a', name: 'run', kinds: ['testChange'] },
            { id: 'b', name: 'update_todo', kinds: ['todoChange'] },
          ],
        },
        1,
      ),
      null,
    );
    expect(words.text).toBe('new to the stall detector: run: test result changed; update_todo: todo list changed');
  });

  it('reads a background job and a masked secret in words, never the secret, and files them under tools', () => {
    const job = toEntry(
      { i: 5, t: 1, kind: 'job', id: '1', command: 'npm run dev', state: 'exited', exitCode: 2, pgid: 7, log: 'jobs/1.log', startedAt: 'x' },
      5,
    );
    const lost = toEntry(
      {
        i: 6,
        t: 1,
        kind: 'job',
        id: '2',
        command: 'make watch',
        state: 'lost',
        exitCode: null,
        pgid: 9,
        log: 'jobs/2.log',
        startedAt: 'x',
        cause: 'rein was stopped',
      },
      6,
    );
    const masked = toEntry(
      { i: 7, t: 1, kind: 'secrets_masked', step: 3, id: 'call_1', name: 'run', findings: [{ kind: 'aws-access-key', line: 2, column: 5 }] },
      7,
    );
    expect([job, lost, masked].every((entry) => entry.known)).toBe(true);
    expect(describeEntry(job, null)).toMatchObject({ badge: 'job', text: 'job 1 (npm run dev) exited 2' });
    expect(describeEntry(lost, null).text).toBe('job 2 (make watch) lost: rein was stopped');
    expect(describeEntry(masked, null)).toMatchObject({
      badge: 'masked',
      tone: 'warning',
      text: 'masked in run before the model saw it: aws-access-key at 2:5',
    });
  });

  it('reports a cut last line and corrupt lines, and falls back to the default rules when the start line has none', () => {
    const dir = makeTempDir('rein-viz-trace-');
    const path = join(dir, 'trace.jsonl');
    const { rules: _rules, ...oldStart } = lines[0]!;
    const body = [
      JSON.stringify({ ...oldStart, version: 0 }),
      ...lines.slice(1, 20).map((line) => JSON.stringify(line)),
      '{"kind":"warp","i":20}',
      'not json at all',
      JSON.stringify(lines[20]).slice(0, 30),
    ];
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

  it("keeps the run's own rules when they parse, and says so when they do not", () => {
    const dir = makeTempDir('rein-viz-trace-');
    const path = join(dir, 'trace.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ ...lines[0], rules: { ...(lines[0]!.rules as object), phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } } })}\n`,
    );
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
  useTempStateDir();
  it("replays with the run's own chart: the rules file named in run.json is loaded again", async () => {
    const { startRun } = await import('../../run/start-run.js');
    const { loadRules } = await import('../../run/rules-files/load-rules.js');
    const { scriptedModelSource } = await import('../../actors/model/model-source.js');
    const { renderReplayPage } = await import('../../visualizer/server/replay-page.js');
    const { reply, call } = await import('../../testing/index.js');
    const workspace = makeTempDir('rein-viz-custom-');
    writeFileSync(join(workspace, 'a.js'), 'export const a = 1;\n');
    writeFileSync(
      join(workspace, 'rein.config.mjs'),
      [
        'export const guards = { readSomething: (context) => context.facts.seq >= 1 };',
        "export const actions = { cheer: () => ({ notices: ['Keep going.'] }) };",
        "export default { phases: { plan: { exits: [{ guard: 'readSomething', to: 'build', actions: [{ action: 'cheer' }] }] } } };",
      ].join('\n'),
    );
    const { trustWorkspaceRules } = await import('../helpers/trust.js');
    await trustWorkspaceRules(workspace);
    const loaded = await loadRules({ workspace });
    const handle = await startRun({
      workspace,
      task: 'Look around.',
      testCmd: 'true',
      rules: { ...loaded.rules, budgets: { ...loaded.rules.budgets, maxSteps: 2 } },
      guards: loaded.guards,
      actions: loaded.actions,
      configPath: loaded.configPath!,
      configFingerprint: loaded.fingerprint!,
      runDir: join(workspace, '.rein', 'runs', 'custom'),
      fsync: false,
      model: scriptedModelSource('scripted', [reply(call('read_file', { path: 'a.js' })), reply(call('read_file', { path: 'a.js' }))]),
    });
    await handle.done;
    const { trace, html } = await renderReplayPage(handle.tracePath);
    expect(trace.notes.map((note) => note.text).join('\n')).not.toMatch(/default rules/);
    expect(trace.rules.phases.plan!.exits[0]!.guard).toBe('readSomething');
    expect(html).toContain('readSomething');
  });
});

describe('stall, gate, blocked and context lines, as a person reads them', () => {
  const row = (line: Record<string, unknown>) => describeEntry(toEntry({ i: 1, t: 1, ...line }, 1), null);

  it('a stall names the rule, what it saw, the count against the limit and which nudge; an older line shows what it has', () => {
    const now = row({
      kind: 'stall',
      step: 12,
      rule: 'readLoop',
      limit: 8,
      count: 8,
      firings: 2,
      maxNudges: 3,
      message: 'Stop reading; edit.',
      reason: '8 reads in a row with nothing new',
    });
    expect(now).toMatchObject({ badge: 'stall', tone: 'stall', text: 'readLoop: 8 reads in a row with nothing new (8/8) → nudge 2 of 3', meta: 'step 12' });
    expect(now.title).toContain('nudge sent: Stop reading; edit.');
    // Before the count and the reason were traced: the limit, and the rule said in words.
    expect(row({ kind: 'stall', step: 3, rule: 'repeatedAction', limit: 3, firings: 1, message: 'm' }).text).toBe(
      'repeatedAction: the same call with the same result 3 times in a row (3/3) → nudge 1',
    );
    expect(row({ kind: 'stall', rule: 'myOwnRule', firings: 1, message: 'm' }).text).toBe('myOwnRule → nudge 1');
    expect(row({ kind: 'end', status: 'stalled', steps: 20, rule: 'readLoop', reason: '8 reads in a row with nothing new' }).text).toBe(
      'stalled after 20 steps: readLoop: 8 reads in a row with nothing new',
    );
  });

  it('a command the deny list refused is blocked, with the rule that matched, not failed', () => {
    const blocked = row({
      kind: 'tool',
      name: 'run',
      args: { command: 'git push --force' },
      ok: false,
      effect: {
        kind: 'command',
        command: 'git push --force',
        exitCode: null,
        timedOut: false,
        blocked: true,
        blockedBy: 'git push publishes work outside the workspace',
      },
    });
    expect(blocked).toMatchObject({
      badge: 'blocked',
      tone: 'blocked',
      text: 'run git push --force  ⊘ blocked: git push publishes work outside the workspace',
    });
    expect(blocked.text).not.toContain('failed');
    const failed = row({
      kind: 'tool',
      name: 'run',
      args: { command: 'make' },
      ok: false,
      effect: { kind: 'command', command: 'make', exitCode: null, timedOut: true, blocked: false },
    });
    expect(failed).toMatchObject({ tone: 'failed', text: 'run make → timed out' });
    // A background job says which job and where it is; an effect kind from a newer rein is named, not dropped.
    const job = { kind: 'job', action: 'read', id: 'j1', command: 'npm run dev', exitCode: 2, log: 'j1.log', newBytes: 0, running: 0 };
    expect(row({ kind: 'tool', name: 'job', args: { action: 'read', id: 'j1' }, ok: true, effect: { ...job, state: 'exited' } }).text).toBe(
      'job {"action":"read","id":"j1"} → job j1 exited 2',
    );
    expect(row({ kind: 'tool', name: 'job', args: { action: 'list' }, ok: true, effect: { ...job, action: 'list', id: null, state: null } }).text).toBe(
      'job {"action":"list"} → job list',
    );
    expect(row({ kind: 'tool', name: 'fetch_url', args: { url: 'x' }, ok: true, effect: { kind: 'http', status: '200' } }).text).toBe(
      'fetch_url {"url":"x"} → http 200',
    );
    expect(row({ kind: 'tool', name: 'list_files', args: {}, ok: true, effect: { kind: 'none' } }).text).toBe('list_files {}');
  });

  it("every context size is in tokens: a summary's characters convert with the run's own ratio", () => {
    const timeline = timelineOf([
      lines[0],
      { i: 1, t: 1, kind: 'context', action: 'summarize', before: { chars: 30_000, tokens: 10_000 }, after: { chars: 27_000, tokens: 9_000 }, step: 6 },
      { i: 2, t: 1, kind: 'context', action: 'summarized', foldedChars: 600, summaryChars: 300, step: 6 },
      { i: 3, t: 1, kind: 'context', action: 'provider_rejected_length', rejectedTokens: 9_120, windowCap: 8_000, attempt: 1, step: 7 },
    ]);
    const text = (index: number) => describeEntry(timeline.entries[index]!, null, { charsPerToken: timeline.charsPerToken(index) }).text;
    expect(text(1)).toBe('view over the hard limit, summarizing: 10,000 → 9,000 tokens');
    expect(text(2)).toBe('summarized: old turns folded into a summary: ≈200 → ≈100 tokens');
    expect(text(3)).toBe('the provider rejected a 9,120-token prompt as too long: window now 8,000 tokens, compacting harder (try 1)');
    // The gauge's window follows what the provider said from then on.
    expect(timeline.moment(2).learntWindow).toBeNull();
    expect(timeline.moment(3).learntWindow).toBe(8_000);
  });
});
