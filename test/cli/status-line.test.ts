import { describe, expect, it } from 'vitest';
import { createStatusLine } from '../../cli/status-line.js';
import type { TraceLine } from '../../lib/trace/trace-events.js';
import { defaultRules } from '../../rules/schema.js';

const USAGE = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

/** A trace line as the run writes it: the fields each kind always has, then the test's own. */
function line(kind: string, data: Record<string, unknown>): TraceLine {
  const defaults: Record<string, Record<string, unknown>> = {
    model: { step: 1, content: null, tool_calls: [], usage: USAGE, ms: 5 },
    finish: { step: 0, refusals: 1, why: 'no passing test run after the last edit', guard: 'testsPassedSinceLastEdit' },
    transition: { from: '', event: 'x' },
  };
  return { i: 0, t: 0, kind, ...defaults[kind], ...data } as unknown as TraceLine;
}

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  return {
    stream: {
      isTTY,
      columns: 200,
      write: (text: string) => {
        chunks.push(text);
        return true;
      },
    },
    text: () => chunks.join(''),
  };
}

describe('status line', () => {
  it('on a pipe: one line per action, naming the step, the phase it was asked in, and the outcome', () => {
    const out = capture(false);
    const status = createStatusLine(out.stream, defaultRules());
    status.onTrace(line('transition', { to: 'build.think' }));
    status.onTrace(line('model', { step: 3, tool_calls: [{}], usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 0 } }));
    status.onTrace(line('transition', { to: 'verify.settle' }));
    status.onTrace(
      line('tool', {
        step: 3,
        name: 'run',
        args: { command: 'npm   test' },
        ok: true,
        effect: { kind: 'command', exitCode: 1, blocked: false, timedOut: false },
      }),
    );
    status.onTrace(line('finish', { allowed: false, step: 3 }));
    status.onTrace(
      line('stall', {
        rule: 'repeatedAction',
        message: 'Do something different.',
        reason: '3 identical actions in a row with the same result',
        firings: 1,
        maxNudges: 3,
        limit: 3,
        count: 3,
      }),
    );
    status.onTrace(line('rule_action', { action: 'notify', notices: ['Read the failure first.'] }));
    expect(out.text()).toBe(
      [
        '[rein] step 3   build  run npm test → exit 1',
        '[rein] step 3   build  finish → refused: no passing test run after the last edit',
        '[rein] stall: repeatedAction (3 identical actions in a row with the same result), nudge 1/3: "Do something different."',
        '[rein] rule action notify: "Read the failure first."',
        '',
      ].join('\n'),
    );
  });

  it('after a resume: names where the run picked up, and the step and phase of a call finished from the cut-short step', () => {
    const out = capture(false);
    const status = createStatusLine(out.stream, defaultRules());
    status.onTrace(line('resume', { fromState: 'build.act', recordLength: 7, elapsedMs: 1800 }));
    status.onTrace(line('tool', { step: 3, name: 'edit_file', args: { path: 'stats.js' }, ok: true, effect: { kind: 'edit', applied: true } }));
    status.onTrace(line('transition', { to: 'build.gate' }));
    status.onTrace(line('finish', { allowed: false, step: 3 }));
    status.onTrace(line('model', { step: 4, tool_calls: [{}] }));
    status.onTrace(line('finish', { allowed: false, step: 4 }));
    expect(out.text()).toBe(
      [
        '[rein] resumed in build.act (7 messages in the record)',
        '[rein] step 3   build  edit_file stats.js → applied',
        '[rein] step 3   build  finish → refused: no passing test run after the last edit',
        '[rein] step 4   build  finish → refused: no passing test run after the last edit',
        '',
      ].join('\n'),
    );
  });

  it('says once per shape that calls were recovered from text, and when tool calling switches to the prompt', () => {
    const out = capture(false);
    const status = createStatusLine(out.stream, defaultRules());
    const recovered = (step: number, shapes: string[]) => line('calls_recovered', { step, shapes, calls: [], raw: '' });
    status.onTrace(recovered(1, ['hermes']));
    status.onTrace(recovered(2, ['hermes']));
    status.onTrace(line('tool_calling', { step: 2, mode: 'prompted', from: 'native', why: 'two replies in a row wrote their calls as text' }));
    status.onTrace(recovered(3, ['hermes', 'mistral']));
    expect(out.text().split('\n').filter(Boolean)).toEqual([
      '[rein] step 1: the model wrote its tool calls as text (hermes); rein runs them as calls (trace: calls_recovered)',
      '[rein] step 2: tools are now described in the prompt and calls read from text (prompted, was native): two replies in a row wrote their calls as text',
      '[rein] step 3: the model wrote its tool calls as text (mistral); rein runs them as calls (trace: calls_recovered)',
    ]);
  });

  it('names a background job and its state when run starts one or job looks at it', () => {
    const out = capture(false);
    const status = createStatusLine(out.stream, defaultRules());
    status.onTrace(
      line('tool', {
        step: 2,
        name: 'run',
        args: { command: 'npm run dev &' },
        ok: true,
        effect: { kind: 'job', action: 'start', id: '1', state: 'running', exitCode: null },
      }),
    );
    status.onTrace(
      line('tool', {
        step: 3,
        name: 'job',
        args: { id: '1', wait: 5 },
        ok: true,
        effect: { kind: 'job', action: 'read', id: '1', state: 'exited', exitCode: 2 },
      }),
    );
    expect(out.text()).toBe('[rein] step 2   -      run npm run dev & → job 1 running\n[rein] step 3   -      job → job 1 exited 2\n');
  });

  it('says why a call failed, and what it was about even when its arguments did not parse', () => {
    const out = capture(false);
    const status = createStatusLine(out.stream, defaultRules());
    status.onTrace(
      line('tool', {
        step: 1,
        name: 'run',
        args: '{"command":"npm test"}',
        ok: false,
        result: 'Tool error: run is not allowed in the plan phase. Allowed here: read_file, grep.',
        effect: { kind: 'none' },
      }),
    );
    status.onTrace(
      line('tool', {
        step: 2,
        name: 'edit_file',
        args: '{"path": "calc.py", "old": 3}',
        ok: false,
        result: 'Tool error: invalid arguments for edit_file: old: expected string, received number\nmore',
        effect: { kind: 'none' },
      }),
    );
    status.onTrace(line('finish', { allowed: false, step: 3, why: 'no passing test run yet' }));
    status.onTrace(line('finish', { allowed: true, step: 4, gate: false }));
    status.onTrace(line('resume', { fromState: 'start', recordLength: 0, elapsedMs: 0 }));
    expect(out.text()).toBe(
      [
        '[rein] step 1   -      run npm test → tool error: run is not allowed in the plan phase. Allowed here: read_file, grep.',
        '[rein] step 2   -      edit_file calc.py → tool error: invalid arguments for edit_file: old: expected string, received number',
        '[rein] step 3   -      finish → refused: no passing test run yet',
        '[rein] step 4   -      finish → accepted (the verification gate is off)',
        '[rein] resumed: the run was stopped before its first step was saved, so it starts over',
        '',
      ].join('\n'),
    );
  });

  it('on a terminal: redraws one line with phase, budgets and tokens, and says when commands are unsandboxed', () => {
    const out = capture(true);
    const status = createStatusLine(out.stream, defaultRules(), { unsandboxed: true, now: () => 0 });
    status.onTrace(line('transition', { to: 'fix.act' }));
    status.onTrace(line('model', { step: 7, tool_calls: [{}], usage: { promptTokens: 900, completionTokens: 100, cachedTokens: 800 } }));
    const lastDraw = out.text().split('\r\x1b[2K').at(-1);
    expect(lastDraw).toBe('[rein] fix    step 7/40  0s/900s  tokens 1000 (cached 800)  [UNSANDBOXED]  last: -');
  });
});
