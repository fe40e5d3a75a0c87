/**
 * Tool-call ids as an endpoint accepts them back. `any`: whatever the
 * provider sent, if it is a plain token (OpenAI, vLLM, llama.cpp, Ollama,
 * Kimi's `functions.f:0`, Cohere's `"0"`); rein's own are `call_<step>_<index>`.
 * `alphanumeric-9`: exactly nine letters and digits, as Mistral's API and its
 * chat templates insist (mistral-common's validator: `^[a-zA-Z0-9]{9}$`).
 */
export const CALL_ID_FORMATS = ['any', 'alphanumeric-9'] as const;
export type CallIdFormat = (typeof CALL_ID_FORMATS)[number];

const ACCEPTED: Record<CallIdFormat, RegExp> = {
  any: /^[^\s\p{Cc}]{1,256}$/u,
  'alphanumeric-9': /^[a-zA-Z0-9]{9}$/,
};

/**
 * Whether an id the provider (or the model) gave can be sent back as it is.
 *
 * @example acceptsCallId('alphanumeric-9', 'call_0fypS1hVX') // false
 */
export function acceptsCallId(format: CallIdFormat, id: string): boolean {
  return ACCEPTED[format].test(id) && !OBJECT_KEYS.has(id);
}

/** Ids that name a property every object has: calls are keyed by id in plain records (decided approvals, hook verdicts), so these are never kept. */
const OBJECT_KEYS = new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)]);

/**
 * An id rein makes for a call that came without a usable one: from the step,
 * the call's place in the reply and, when that id is taken, the attempt, so it
 * is the same on every replay and unique in the run.
 *
 * @example makeCallId('alphanumeric-9', { step: 3, index: 1 }) // 'r00003010'
 */
export function makeCallId(format: CallIdFormat, at: { step: number; index: number; attempt?: number }): string {
  const attempt = at.attempt ?? 0;
  if (format === 'any') return attempt === 0 ? `call_${at.step}_${at.index}` : `call_${at.step}_${at.index}_${attempt}`;
  // r + step (5 base-36 digits) + index (2) + attempt (1): nine letters and digits. Past 35 attempts (or huge numbers)
  // the digits come from a mix of all three, so a long run of taken ids still finds a free one.
  const digits = (value: number, width: number) => (value % 36 ** width).toString(36).padStart(width, '0');
  if (attempt < 36) return `r${digits(at.step, 5)}${digits(at.index, 2)}${digits(attempt, 1)}`;
  return `s${digits(at.step * 7919 + at.index * 104_729 + attempt * 1_299_709, 8)}`;
}
