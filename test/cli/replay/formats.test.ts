import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { actionMapWith, mapShell } from '../../../cli/replay/action-map.js';
import { loadRuns } from '../../../cli/replay/load-runs.js';
import { mergeResults, mergeWarnings, readResults } from '../../../cli/replay/resolved.js';
import { exportRunAsAtif } from '../../../telemetry/atif/export-run.js';
import { call, reply, runScripted } from '../../../testing/index.js';
import { makeTempDir } from '../../helpers/workspace.js';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'replay');
const tools = (file: string) => loadRuns(join(fixtures, file)).runs[0]!.steps.map((step) => step.tool);

describe('recorded runs in their real formats (replay/formats/)', () => {
  it('mini-swe-agent .traj.json: one bash block a reply, mapped by what the command does; other replies are none', () => {
    const { runs, formats } = loadRuns(join(fixtures, 'sympy__sympy-11618.traj.json'));
    expect(formats).toEqual({ 'mini-swe-agent': 1 });
    const [run] = runs;
    expect(run!.exitStatus).toBe('submitted');
    expect(run!.steps.map((step) => step.tool)).toEqual(['grep', 'edit_file', 'run', 'read_file', 'none', 'edit_file', 'finish']);
    expect(run!.steps[0]).toMatchObject({ args: { pattern: 'class Point', path: 'sympy' }, exitCode: 0 });
    expect(run!.steps[1]).toMatchObject({ args: { path: 'reproduce_issue.py', old: '' }, edit: { applied: true, kind: 'create' } });
    expect(run!.steps[3]).toMatchObject({ args: { path: 'sympy/geometry/point.py', start: 240 } });
    expect(run!.steps[4]!.output).toMatch(/EXACTLY ONE action/);
    expect(run!.steps[5]).toMatchObject({ args: { path: 'sympy/geometry/point.py' }, edit: { kind: 'sed', applied: true } });
  });

  it('SWE-agent .traj: editor view of a directory is a listing, of a file a read; a replacement that was not performed is an edit that did not apply', () => {
    const { runs } = loadRuns(join(fixtures, 'django__django-11099.traj'));
    const [run] = runs;
    expect(run!.instance).toBe('django__django-11099');
    expect(run!.steps.map((step) => step.tool)).toEqual(['run', 'read_file', 'edit_file', 'run', 'grep', 'edit_file', 'finish']);
    expect(run!.steps[0]!.args).toEqual({ command: 'ls -R /testbed' });
    expect(run!.steps[0]!.output).not.toContain('\r');
    expect(run!.steps[2]).toMatchObject({ edit: { applied: false, kind: 'replace' } });
    expect(String(run!.steps[2]!.args.old)).toContain('regex = r');
    expect(run!.steps[3]).toMatchObject({ args: { command: 'python reproduce.py' }, exitCode: 1 });
    expect(run!.steps[5]).toMatchObject({ args: { old: '@undo' }, edit: { kind: 'undo', applied: true } });
  });

  it('ATIF: agent steps with tool calls and their observation results; an unknown tool is replayed as run and counted, never dropped', () => {
    const { runs } = loadRuns(join(fixtures, 'trajectory.json'));
    const [run] = runs;
    expect(run).toMatchObject({ id: 'demo__demo-1', resolved: true, system: 'some-agent' });
    expect(run!.steps.map((step) => step.tool)).toEqual(['read_file', 'edit_file', 'run', 'none']);
    expect(run!.steps[1]!.args).toMatchObject({ path: 'src/app.py', old: 'return 3', new: 'return 4' });
    expect(run!.steps[2]!.unmapped).toBe('browser_open');
  });

  it('ATIF of every version: Claude Code’s and rein’s v1.7, Terminus-2’s v1.6, an older v1.4 (real files, test/fixtures/atif)', () => {
    const atif = (file: string) => loadRuns(join(fixtures, '..', 'atif', file)).runs[0]!;
    const claude = atif('claude-code-hello.trajectory.json');
    expect(claude).toMatchObject({ system: 'claude-code', model: 'claude-opus-5' });
    expect(claude.steps.map((step) => step.tool)).toEqual(['edit_file', 'none']);
    expect(claude.steps[0]).toMatchObject({
      args: { path: '/app/hello.txt', new: 'Hello, world!\n' },
      output: expect.stringMatching(/^File created successfully/),
    });
    const terminus = atif('terminus-2-timeout.v1.6.trajectory.json');
    expect(terminus.steps.every((step) => step.tool !== 'none' || step.raw !== undefined)).toBe(true);
    expect(terminus.steps.filter((step) => step.unmapped)).toEqual([]);
    const rein = atif('rein-export.trajectory.json');
    expect(rein.steps.map((step) => step.tool)).toEqual(['read_file', 'read_file', 'read_file', 'read_file', 'edit_file', 'finish', 'run', 'finish']);
    expect(tools('trajectory.json')).toEqual(['read_file', 'edit_file', 'run', 'none']);
  });

  it('OpenAI chat messages: a file of messages is one run; a file of runs is one run a line, and a malformed line is skipped naming its file and line', () => {
    expect(tools('chat-messages.jsonl')).toEqual(['grep', 'run']);
    const { runs, skipped } = loadRuns(join(fixtures, 'chat-runs.jsonl'));
    expect(runs.map((run) => run.id)).toEqual(['chat-1', 'chat-2']);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.why).toMatch(/chat-runs\.jsonl:2: not JSON/);
  });

  it('a directory is read recursively; a damaged run is skipped with why, a file that holds no run is passed over quietly, and the rest is still read', () => {
    const dir = makeTempDir('rein-replay-');
    writeFileSync(join(dir, 'a.traj'), JSON.stringify({ trajectory: [{ action: 'ls', observation: 'x' }] }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ hello: 1 }));
    writeFileSync(join(dir, 'preds.json'), JSON.stringify({ 'x__y-1': { model_patch: 'diff', instance_id: 'x__y-1' } }));
    writeFileSync(join(dir, 'c.traj'), JSON.stringify({ trajectory: [{ observation: 'no action' }] }));
    writeFileSync(
      join(dir, 'd.jsonl.gz'),
      gzipSync(JSON.stringify({ instance: 'x__y-1', resolved: true, steps: [{ tool: 'grep', args: { pattern: 'p' }, out_len: 3, out_head: 'hit' }] })),
    );
    writeFileSync(join(dir, 'e.jsonl'), `${JSON.stringify({ instance: 'x__y-2', steps: [{ tool: 'teleport' }] })}\n`);
    writeFileSync(join(dir, 'f.jsonl'), `${JSON.stringify({ level: 'info', msg: 'a log line' })}\n`);
    const { runs, skipped, ignored } = loadRuns(dir);
    expect(runs.map((run) => run.id)).toEqual(['a.traj', 'run/x__y-1'].map((id) => (id.endsWith('.traj') ? join(dir, id) : id)));
    expect(skipped.map((skip) => skip.why)).toEqual([
      `${join(dir, 'c.traj')} (trajectory[0]): an entry needs an "action" string`,
      `${join(dir, 'e.jsonl')}:1 (step 1): unknown tool "teleport" (expected one of read_file, grep, edit_file, run, update_todo, finish, none)`,
    ]);
    expect(ignored).toEqual(['b.json', 'f.jsonl', 'preds.json'].map((name) => join(dir, name)));
    // Named on its own, a file that holds no run is reported.
    expect(loadRuns(join(dir, 'b.json')).skipped[0]!.why).toMatch(/b\.json: not a format rein replay reads/);
  });

  it('a rein run folder is one run, read from its trace: never its record, saved state or ATIF beside it', async () => {
    const runs = join(makeTempDir('rein-replay-runs-'), '.rein', 'runs');
    for (const id of ['20260101T000000Z-aaaa', '20260101T000100Z-bbbb']) {
      await runScripted({
        files: { 'a.txt': 'a\n' },
        testCmd: 'true',
        runDir: join(runs, id),
        rules: { budgets: { maxSteps: 2 }, stall: { maxNudges: 100 } },
        script: () => reply(call('read_file', { path: 'a.txt' })),
      });
      writeFileSync(join(runs, id, 'trajectory.json'), JSON.stringify(exportRunAsAtif(join(runs, id))));
    }
    const loaded = loadRuns(runs);
    expect(loaded.formats).toEqual({ 'rein-trace': 2 });
    expect(loaded.runs.map((run) => run.origin?.file)).toEqual([
      join(runs, '20260101T000000Z-aaaa', 'trace.jsonl'),
      join(runs, '20260101T000100Z-bbbb', 'trace.jsonl'),
    ]);
    expect(loaded.skipped).toEqual([]);
    expect(loaded.ignored).toEqual([]);
  });
});

describe('the action map: a shell command becomes the tool it acts like', () => {
  it('reads, searches and edits by what they do; the rest is run', () => {
    expect(mapShell('cat src/a.py')).toMatchObject({ tool: 'read_file', args: { path: 'src/a.py' } });
    expect(mapShell("cd /testbed && sed -n '10,40p' src/a.py")).toMatchObject({ tool: 'read_file', args: { path: 'src/a.py', start: 10 } });
    expect(mapShell('rg -n "def total" src | head')).toMatchObject({ tool: 'grep', args: { pattern: 'def total', path: 'src' } });
    expect(mapShell("sed -i 's/a/b/' src/a.py")).toMatchObject({ tool: 'edit_file', args: { path: 'src/a.py' }, edit: { kind: 'sed' } });
    expect(mapShell('echo "x = 1" > src/b.py')).toMatchObject({ tool: 'edit_file', args: { path: 'src/b.py' }, edit: { kind: 'create' } });
    expect(mapShell('cat src/a.py | wc -l')).toMatchObject({ tool: 'run' });
    expect(mapShell('python -m pytest -q')).toEqual({ tool: 'run', args: { command: 'python -m pytest -q' } });
  });

  it('a --map file adds entries tried first; a bad entry is an error naming it', () => {
    const map = actionMapWith({ shell: [{ match: '^bat\\s+(\\S+)$', tool: 'read_file', path: 1 }], tools: { my_search: 'grep' } });
    expect(mapShell('bat src/a.py', map)).toMatchObject({ tool: 'read_file', args: { path: 'src/a.py' } });
    expect(mapShell('bat src/a.py')).toMatchObject({ tool: 'run' });
    expect(map.tools.my_search).toBe('grep');
    expect(() => actionMapWith({ shell: [{ match: '(', tool: 'read_file' }] })).toThrow(/map shell\[0\]: match is not a regular expression/);
    expect(() => actionMapWith({ tools: { x: 'teleport' as never } })).toThrow(/map tools.x: "teleport"/);
  });
});

describe('which runs resolved, from a results file merged into the runs’ own records', () => {
  const run = (id: string, resolved: boolean | null) => ({ id: `r-${id}`, instance: id, resolved, steps: [] });

  it('a run the file names takes its verdict; one it does not name keeps its own record, and the merge says what it did', () => {
    const dir = makeTempDir('rein-replay-');
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ resolved_ids: ['a__b-1'], unresolved_ids: ['a__b-2'] }));
    const runs = [run('a__b-1', null), run('a__b-2', true), run('a__b-3', true), run('a__b-4', false), run('a__b-5', null)];
    const merge = mergeResults(runs, readResults(file));
    expect(runs.map((entry) => entry.resolved)).toEqual([true, false, true, false, null]);
    expect(merge).toEqual({ listed: 2, overridden: 1, keptOwn: 2, unknownMadeUnresolved: 0, unknownKept: 1 });
    expect(mergeWarnings('results.json', merge, runs.length)).toEqual([
      "results.json overrides the record of 1 run (it says otherwise than the run's own file)",
      'results.json names 2 of 5 runs; of the 3 it does not name, 2 keep their own record, 1 stay unknown',
    ]);
  });

  it('a list of resolved ids only (SWE-agent’s results.json) makes runs with no record of their own unresolved, and says so', () => {
    const dir = makeTempDir('rein-replay-');
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ no_generation: [], resolved: ['a__b-1'] }));
    const runs = [run('a__b-1', null), run('a__b-2', null), run('a__b-3', true)];
    const merge = mergeResults(runs, readResults(file));
    expect(runs.map((entry) => entry.resolved)).toEqual([true, false, true]);
    expect(mergeWarnings('r.json', merge, runs.length)).toEqual([
      'r.json names 1 of 3 runs; of the 2 it does not name, 1 keep their own record, 1 with no record of their own count as unresolved (the file lists the resolved ones)',
    ]);
  });

  it('reads a per-instance report and a summary of instances; a file without any verdict is an error', () => {
    const dir = makeTempDir('rein-replay-');
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ 'a__b-2': { resolved: true } }));
    expect(readResults(file).known).toEqual(new Map([['a__b-2', true]]));
    // mini-swe-agent's published results_summary.json, as the real file has it.
    const summary = readResults(join(fixtures, 'mini-swe-agent', 'results_summary.json'));
    expect(summary.known.get('astropy__astropy-13453')).toBe(true);
    expect(summary.known.get('django__django-11138')).toBe(false);
    expect(mergeWarnings('x', mergeResults([run('a__b-2', null)], readResults(file)), 1)).toEqual([]);
    writeFileSync(file, '{}');
    expect(() => readResults(file)).toThrow(/no resolved instances found/);
  });
});
