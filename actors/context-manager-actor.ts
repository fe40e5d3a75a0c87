import { fromPromise } from 'xstate';
import { type ContextRules, manageContext } from '../context/context-manager.js';
import type { MessageRecord } from '../context/messages.js';
import type { ViewBuilder } from '../context/view-builder.js';
import type { ContextInput, ContextOutput } from '../machines/actor-contracts.js';

/**
 * The context-manager actor: builds the working view from the full record
 * (which it never modifies) and decides on elision or a summary.
 *
 * @example const contextManager = createContextManagerActor({ record: () => transcript, builder: new ViewBuilder(), rules: rules.context });
 */
export function createContextManagerActor(deps: { record: () => MessageRecord; builder: ViewBuilder; rules: ContextRules }) {
  return fromPromise<ContextOutput, ContextInput>(async ({ input }) => {
    // XState delivers emitted events (the record appends) after the transition that
    // started this actor; wait one microtask so the record includes them.
    await Promise.resolve();
    const decision = manageContext(deps.record(), input.contextState, deps.rules, deps.builder, { force: input.force, overheadTokens: input.overheadTokens });
    return {
      contextState: decision.state,
      messages: decision.view.messages,
      tokens: decision.tokens,
      action: decision.action,
      before: decision.before,
      chars: decision.view.chars,
    };
  });
}
