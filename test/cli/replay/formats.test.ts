import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { actionMapWith, mapShell } from '../../../cli/replay/action-map.js';
import { loadRuns } from '../../../cli/replay/load-runs.js';
import { resolvedFrom } from '../../../cli/replay/resolved.js';
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

  it('OpenAI chat messages: a file of messages is one run; a file of runs is one run a line, and a malformed line is skipped naming its file and line', () => {
    expect(tools('chat-messages.jsonl')).toEqual(['grep', 'run']);
    const { runs, skipped } = loadRuns(join(fixtures, 'chat-runs.jsonl'));
    expect(runs.map((run) => run.id)).toEqual(['chat-1', 'chat-2']);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.why).toMatch(/chat-runs\.jsonl:2: not JSON/);
  });

  it('a directory is read recursively; a file of no known format is skipped with why, and the rest is still read', () => {
    const dir = makeTempDir('rein-replay-');
    writeFileSync(join(dir, 'a.traj'), JSON.stringify({ trajectory: [{ action: 'ls', observation: 'x' }] }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ hello: 1 }));
    writeFileSync(join(dir, 'c.traj'), JSON.stringify({ trajectory: [{ observation: 'no action' }] }));
    writeFileSync(
      join(dir, 'd.jsonl.gz'),
      gzipSync(JSON.stringify({ instance: 'x__y-1', resolved: true, steps: [{ tool: 'grep', args: { pattern: 'p' }, out_len: 3, out_head: 'hit' }] })),
    );
    writeFileSync(join(dir, 'e.jsonl'), `${JSON.stringify({ instance: 'x__y-2', steps: [{ tool: 'teleport' }] })}\n`);
    const { runs, skipped } = loadRuns(dir);
    expect(runs.map((run) => run.id)).toEqual(['a.traj', 'run/x__y-1'].map((id) => (id.endsWith('.traj') ? join(dir, id) : id)));
    expect(skipped.map((skip) => skip.why)).toEqual([
      `${join(dir, 'b.json')}: not a format rein replay reads (realtraj JSONL, rein trace, mini-swe-agent .traj.json, SWE-agent .traj, ATIF, OpenAI chat)`,
      `${join(dir, 'c.traj')} (trajectory[0]): an entry needs an "action" string`,
      `${join(dir, 'e.jsonl')}:1 (step 1): unknown tool "teleport" (expected one of read_file, grep, edit_file, run, update_todo, finish, none)`,
    ]);
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

describe('which runs resolved, from a SWE-bench results file', () => {
  it('resolved_ids marks the runs named resolved and the others not; a file without any is an error', () => {
    const dir = makeTempDir('rein-replay-');
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ resolved_ids: ['a__b-1'] }));
    const resolved = resolvedFrom(file);
    expect(resolved({ id: 'r1', instance: 'a__b-1', resolved: null, steps: [] })).toBe(true);
    expect(resolved({ id: 'r2', instance: 'a__b-2', resolved: true, steps: [] })).toBe(false);
    writeFileSync(file, JSON.stringify({ 'a__b-2': { resolved: true } }));
    expect(resolvedFrom(file)({ id: 'r2', instance: 'a__b-2', resolved: null, steps: [] })).toBe(true);
    writeFileSync(file, '{}');
    expect(() => resolvedFrom(file)).toThrow(/no resolved instances found/);
  });
});
