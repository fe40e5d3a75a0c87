import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../../lib/errors.js';
import { type ApprovalDecision, DECIDERS, type PendingApproval } from '../../rules/approvals/pending.js';
import { REMEMBER_SCOPES } from '../../rules/approvals/remembered.js';

/**
 * The two files of a run directory that carry an approval between
 * processes: the request (the waiting call, written by the run) and the
 * answer (written by `rein approve`, read by the run's approver). The answer
 * is bound to the call's id and argument hash; the run checks both.
 */

const answerSchema = z.strictObject({
  callId: z.string().min(1),
  argsHash: z.string().min(1),
  verdict: z.enum(['allow', 'deny']),
  by: z.enum(DECIDERS),
  message: z.string().optional(),
  remember: z.enum(REMEMBER_SCOPES).optional(),
  answeredAt: z.string().optional(),
});

function writeAtomically(path: string, value: unknown): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** When a request was first asked, and by when an answer must come (set while a terminal or the page can answer). */
interface RequestTimes {
  askedAt: string;
  deadline?: string;
}

export function writeApprovalRequest(path: string, pending: PendingApproval, times: RequestTimes = { askedAt: new Date().toISOString() }): void {
  writeAtomically(path, { ...pending, ...times });
}

const requestTimes = z.looseObject({ callId: z.string(), argsHash: z.string(), askedAt: z.iso.datetime(), deadline: z.iso.datetime().optional() });

/**
 * The times of the request in the file when it is for this very call (same id and argument hash): a wait that a
 * killed run began goes on counting from them. Anything else (no file, another call, a damaged file) is none.
 */
export function carriedRequestTimes(path: string, pending: PendingApproval): RequestTimes | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = requestTimes.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success || parsed.data.callId !== pending.callId || parsed.data.argsHash !== pending.argsHash) return null;
    const { askedAt, deadline } = parsed.data;
    return { askedAt, ...(deadline ? { deadline } : {}) };
  } catch {
    return null;
  }
}

export function writeApprovalAnswer(path: string, answer: ApprovalDecision): void {
  writeAtomically(path, { ...answer, answeredAt: new Date().toISOString() });
}

/** The answer in the file, or null when there is none; a malformed file is an error naming it (the approver then denies). */
export function readApprovalAnswer(path: string): ApprovalDecision | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${path}: not an approval answer (${parsed.error.issues[0]?.message ?? 'bad shape'})`);
  const { answeredAt: _answeredAt, ...answer } = parsed.data;
  return answer;
}

/** Both files removed once the answer is taken, so neither is mistaken for the next call's. */
export function clearApprovalFiles(...paths: string[]): void {
  for (const path of paths) rmSync(path, { force: true });
}
