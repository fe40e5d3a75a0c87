import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parsePromptAnswer, terminalSource } from '../../../cli/approval-prompt.js';
import { metricsFromTrace } from '../../../eval/trace-metrics.js';

const pending = {
  callId: 'call_1_0',
  tool: 'run',
  args: { command: 'make deploy' },
  argsHash: 'h',
  reason: 'an ask rule matches (run)',
  phase: 'build',
  step: 1,
};

describe('the terminal prompt (approvals/terminal-prompt.ts)', () => {
  it.each([
    ['y', { verdict: 'allow' }],
    ['YES', { verdict: 'allow' }],
    ['a', { verdict: 'allow', remember: 'command' }],
    ['t', { verdict: 'allow', remember: 'tool' }],
    ['r', { verdict: 'allow', remember: 'repository' }],
    ['n', { verdict: 'deny' }],
    ['n   use make test instead ', { verdict: 'deny', message: 'use make test instead' }],
    ['', null],
    ['yep', null],
    ['sure', null],
  ])('%j → %j (anything unclear is asked again, never a yes)', (typed, answer) => {
    expect(parsePromptAnswer(typed)).toEqual(answer);
  });

  it('shows the call and why, asks again after an unclear answer, and returns the answer', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    const answer = terminalSource(input, output).ask(pending, new AbortController().signal);
    input.write('maybe\n');
    setTimeout(() => input.write('n not on a Friday\n'), 20);
    await expect(answer).resolves.toEqual({ verdict: 'deny', message: 'not on a Friday' });
    expect(shown).toContain('make deploy');
    expect(shown).toContain('an ask rule matches (run)');
    expect(shown).toContain('y = yes, once');
  });

  it('an answer from elsewhere (the abort) closes the prompt', async () => {
    const controller = new AbortController();
    const answer = terminalSource(new PassThrough(), new PassThrough()).ask(pending, controller.signal);
    controller.abort(new Error('answered by rein approve'));
    await expect(answer).rejects.toThrow();
  });
});

describe('eval results count approvals (eval/trace-metrics.ts)', () => {
  it('counts asks and denials from the trace', () => {
    const line = (kind: string, extra: object) => ({ i: 0, t: 0, kind, ...extra });
    const metrics = metricsFromTrace(
      [
        line('approval_ask', {}),
        line('approval_decision', { verdict: 'deny' }),
        line('approval_decision', { verdict: 'allow' }),
        line('approval_decision', { verdict: 'deny' }),
      ],
      null,
    );
    expect({ asks: metrics.approvalAsks, denials: metrics.approvalDenials }).toEqual({ asks: 1, denials: 2 });
  });
});
