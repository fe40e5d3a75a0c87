import { describe, expect, it } from 'vitest';
import { harnessSetup } from '../../machines/harness-setup.js';

/**
 * The chart is type-checked: `npm test` runs `tsc -p tsconfig.test.json`
 * over this file, and each `@ts-expect-error` below fails the build if the
 * misspelled name it marks ever compiles (a directive with no error to
 * suppress is itself an error).
 */
describe('a misspelled name in a phase state does not compile', () => {
  it('guards, actions, actors and their parameters are checked against the one setup()', () => {
    const typo = () => [
      // @ts-expect-error: no guard is called "stepLimitReachd"
      harnessSetup.createStateConfig({ always: [{ guard: { type: 'stepLimitReachd', params: { max: 40 } }, target: 'x' }] }),
      // @ts-expect-error: no action is called "deliverNotice"
      harnessSetup.createStateConfig({ entry: 'deliverNotice' }),
      // @ts-expect-error: no actor is called "modle"
      harnessSetup.createStateConfig({ invoke: { src: 'modle' } }),
      // @ts-expect-error: stepLimitReached reads `max`, not `limit`
      harnessSetup.createStateConfig({ always: [{ guard: { type: 'stepLimitReached', params: { limit: 40 } }, target: 'x' }] }),
      harnessSetup.createStateConfig({
        invoke: {
          src: 'model',
          input: { messages: [], maxCompletionTokens: 100, step: 1 },
          // @ts-expect-error: the model's output has no `reply` field; event outputs reach actions typed
          onDone: { actions: { type: 'recordReply', params: ({ event }) => ({ reply: event.output.reply }) } },
        },
      }),
    ];
    // The right names compile and build state configs (what the phase builder does).
    const right = harnessSetup.createStateConfig({ always: [{ guard: { type: 'stepLimitReached', params: { max: 40 } }, target: 'x' }] });
    expect(right.always).toHaveLength(1);
    expect(typo).toBeTypeOf('function');
  });
});
