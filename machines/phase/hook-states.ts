import type { Phase } from '../../rules/schema.js';
import type { HooksInput } from '../actor-contracts.js';
import { refusalParams } from '../gate.js';
import { harnessSetup } from '../harness-setup.js';
import { hookFailure, hookInputFor, phaseChangeInput, postToolInput } from '../hook-handling.js';
import type { PhasePlan } from './plan.js';

/** `preToolHook`, with preToolUse hooks: they may allow, deny or ask on the next call; a hook that crashes or times out denies. */
export function preToolHookStates() {
  return {
    preToolHook: harnessSetup.createStateConfig({
      description: 'Run the preToolUse hooks on the next call: they may allow, deny or ask; a hook that crashes or times out denies.',
      invoke: {
        id: 'preToolHook',
        src: 'hooks',
        input: ({ context }): HooksInput => hookInputFor(context, 'preToolUse'),
        onDone: { target: 'screen', actions: { type: 'recordHookVerdict', params: ({ event }) => ({ output: event.output }) } },
        onError: { target: 'screen', actions: { type: 'recordHookVerdict', params: ({ event }) => ({ output: hookFailure(event.error) }) } },
      },
    }),
  };
}

/** `postToolHook`, with postToolUse hooks: their notes are added to the result of the call that just ran. */
export function postToolHookStates(plan: PhasePlan) {
  const { fold } = plan;
  return {
    postToolHook: harnessSetup.createStateConfig({
      description: 'Run the postToolUse hooks on the call that just ran: their notes are added to its result for the model; a failure is traced.',
      invoke: {
        id: 'postToolHook',
        src: 'hooks',
        input: ({ context }): HooksInput => postToolInput(context),
        onDone: { target: 'afterTools', actions: { type: 'recordHookedResults', params: ({ event }) => ({ output: event.output, fold }) } },
        onError: {
          target: 'afterTools',
          actions: [
            { type: 'reportHookFailure', params: ({ event }) => ({ moment: 'postToolUse' as const, error: event.error }) },
            { type: 'recordHookedResults', params: { output: { decision: null, notes: [] }, fold } },
          ],
        },
      },
    }),
  };
}

/** `phaseHook`, with phaseChange hooks, for a phase entered from another at the start of a turn. */
export function phaseHookStates(plan: PhasePlan) {
  return { phaseHook: phaseChangeHookState(plan.phase, 'observe') };
}

/** `settleHook`, with phaseChange hooks, for a phase entered through a settle exit. */
export function settleHookStates(plan: PhasePlan) {
  return { settleHook: phaseChangeHookState(plan.phase, 'settle') };
}

/** A phase entered from another: its phaseChange hooks are told, then the phase starts a turn (observe) or judges the entering one (settle). */
function phaseChangeHookState(phase: Phase, next: 'observe' | 'settle') {
  return harnessSetup.createStateConfig({
    description:
      next === 'settle'
        ? 'Entered through a settle exit: run the phaseChange hooks (their answer changes nothing; a failure is traced), then settle.'
        : 'Entered from another phase: run the phaseChange hooks (their answer changes nothing; a failure is traced).',
    invoke: {
      id: 'phaseHook',
      src: 'hooks',
      input: ({ context }): HooksInput => phaseChangeInput(context, { to: phase }),
      onDone: { target: next },
      onError: { target: next, actions: { type: 'reportHookFailure', params: ({ event }) => ({ moment: 'phaseChange' as const, error: event.error }) } },
    },
  });
}

/** `finishHook`, with beforeFinish hooks in a phase that allows finish: a denial refuses the finish; otherwise the gate judges. */
export function finishHookStates(plan: PhasePlan) {
  const { rules } = plan;
  return {
    finishHook: harnessSetup.createStateConfig({
      description: 'Run the beforeFinish hooks: a denial (or a hook that crashes or times out) refuses the finish with its reason; otherwise the gate judges.',
      invoke: {
        id: 'finishHook',
        src: 'hooks',
        input: ({ context }): HooksInput => hookInputFor(context, 'beforeFinish'),
        onDone: [
          {
            guard: { type: 'hookDeniedFinish', params: ({ event }) => ({ output: event.output }) },
            target: 'afterTools',
            actions: { type: 'refuseFinishByHook', params: ({ event }) => ({ ...refusalParams(rules), guard: 'beforeFinish hook', output: event.output }) },
          },
          { target: 'gate' },
        ],
        onError: {
          target: 'afterTools',
          actions: {
            type: 'refuseFinishByHook',
            params: ({ event }) => ({ ...refusalParams(rules), guard: 'beforeFinish hook', output: hookFailure(event.error) }),
          },
        },
      },
    }),
  };
}
