import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { runEvent } from '../../telemetry/event-attributes.js';

const line = (fields: Record<string, unknown>) => ({ i: 1, t: 1, ...fields }) as TraceRecord;

describe('approvals and hooks as OpenTelemetry span events (telemetry/event-attributes.ts)', () => {
  it('an answer says who answered, how long it took and what was remembered; the message only with content capture', () => {
    const decision = line({
      kind: 'approval_decision',
      step: 2,
      callId: 'c',
      tool: 'run',
      verdict: 'deny',
      by: 'page',
      waitedMs: 1200,
      remember: 'tool',
      message: 'no',
    });
    expect(runEvent(decision, false)).toEqual({
      name: 'rein.approval_decision',
      attributes: {
        'rein.step': 2,
        'rein.tool.call_id': 'c',
        'rein.tool.name': 'run',
        'rein.approval.verdict': 'deny',
        'rein.approval.by': 'page',
        'rein.approval.waited_ms': 1200,
        'rein.approval.remember': 'tool',
      },
    });
    expect(runEvent(decision, true)?.attributes['rein.message']).toBe('no');
  });
  it('asks and hooks are events of their own, not unknown lines', () => {
    expect(runEvent(line({ kind: 'approval_ask', step: 1, callId: 'c', tool: 'run', reason: 'r' }), false)?.name).toBe('rein.approval_ask');
    const hook = runEvent(
      line({ kind: 'hook', step: 1, moment: 'preToolUse', command: './p.sh', where: 'sandbox', exitCode: 2, ms: 5, decision: 'deny' }),
      false,
    );
    expect(hook).toMatchObject({
      name: 'rein.hook',
      attributes: { 'rein.hook.moment': 'preToolUse', 'rein.hook.decision': 'deny', 'rein.hook.where': 'sandbox', 'rein.command.exit_code': 2 },
    });
    expect(hook?.attributes['rein.command']).toBeUndefined();
  });
});
