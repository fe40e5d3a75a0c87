import { h } from './dom.js';
import { pageSession, SESSION_HEADER } from './session.js';
import { visibleText } from './visible-text.js';

interface Asked {
  callId: string;
  tool: string;
  args: unknown;
  argsHash: string;
  reason: string;
}

/**
 * The waiting call of a live run, with Approve / Deny buttons and a message
 * for the model. The answer is POSTed with the tab's session (page-access.ts)
 * and names the call's id and argument hash, so it can only ever answer this call.
 *
 * @example const panel = new ApprovalPanel('/approval'); panel.asked(line); panel.decided(line);
 */
export class ApprovalPanel {
  readonly element = h('section', { class: 'approval', hidden: true, 'aria-live': 'polite' });
  private current: Asked | null = null;

  constructor(private readonly url: string) {}

  /** An `approval_ask` line: show the call. */
  asked(line: Record<string, unknown>): void {
    const asked = { callId: String(line.callId), tool: String(line.tool), args: line.args, argsHash: String(line.argsHash), reason: String(line.reason ?? '') };
    this.current = asked;
    const message = h('input', { class: 'approval-message', type: 'text', placeholder: 'message for the model (optional)' });
    const remember = h('select', { class: 'approval-remember', title: 'remember this answer' });
    for (const [value, label] of [
      ['once', 'just this once'],
      ['command', 'this exact call, rest of the run'],
      ['tool', `every ${asked.tool} call, rest of the run`],
      ['repository', 'this exact call in this repository'],
    ] as const)
      remember.append(h('option', { value }, label));
    const status = h('span', { class: 'approval-status' });
    const answer = (verdict: 'allow' | 'deny') => void this.send(asked, verdict, message.value, remember.value, status);
    const approve = h('button', { class: 'approve', type: 'button' }, 'Approve');
    const deny = h('button', { class: 'deny', type: 'button' }, 'Deny');
    approve.addEventListener('click', () => answer('allow'));
    deny.addEventListener('click', () => answer('deny'));
    this.element.replaceChildren(
      // Control, bidi and zero-width characters spelled out: what the person reads is what would run.
      h('h2', {}, `Waiting for an approval: ${visibleText(asked.tool)}`),
      h('pre', { class: 'approval-args' }, visibleText(JSON.stringify(asked.args, null, 2) ?? '')),
      h('p', { class: 'approval-reason' }, `asked because: ${visibleText(asked.reason)}`),
      h('div', { class: 'approval-actions' }, approve, deny, remember, message, status),
    );
    this.element.hidden = false;
  }

  /** An `approval_decision` line for the shown call: it was answered (here or elsewhere). */
  decided(line: Record<string, unknown>): void {
    if (this.current && line.callId === this.current.callId) {
      this.current = null;
      this.element.hidden = true;
      this.element.replaceChildren();
    }
  }

  private async send(asked: Asked, verdict: 'allow' | 'deny', message: string, remember: string, status: HTMLElement): Promise<void> {
    status.textContent = 'sending…';
    const body = {
      callId: asked.callId,
      argsHash: asked.argsHash,
      verdict,
      ...(message.trim() ? { message: message.trim() } : {}),
      ...(remember !== 'once' ? { remember } : {}),
    };
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SESSION_HEADER]: pageSession() },
        body: JSON.stringify(body),
      });
      status.textContent = response.ok ? 'answered' : (await response.text()).trim();
    } catch (error) {
      status.textContent = `could not answer: ${(error as Error).message}`;
    }
  }
}
