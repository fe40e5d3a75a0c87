import type { ReplayNudge, ReplayResult } from 'rein/testing';

/** What changed on one run between two rules sets. */
export interface RunChange {
  id: string;
  resolved: boolean | null;
  /** Nudges only A sent (lost under B) and only B sent (gained), each with the actions around it. */
  lost: Array<NudgeInContext>;
  gained: Array<NudgeInContext>;
  stopA: number | null;
  stopB: number | null;
}

interface NudgeInContext extends ReplayNudge {
  /** The recorded actions around the nudge (two before, the one it followed, two after), shortened. */
  around: string[];
}

const key = (nudge: ReplayNudge) => `${nudge.index}:${nudge.rule}`;

/** The runs whose nudges or stop differ between A and B (same runs, same order). */
export function compareResults(a: readonly ReplayResult[], b: readonly ReplayResult[]): RunChange[] {
  const changes: RunChange[] = [];
  a.forEach((left, index) => {
    const right = b[index]!;
    const inB = new Set(right.nudges.map(key));
    const inA = new Set(left.nudges.map(key));
    const lost = left.nudges.filter((nudge) => !inB.has(key(nudge))).map((nudge) => inContext(left, nudge));
    const gained = right.nudges.filter((nudge) => !inA.has(key(nudge))).map((nudge) => inContext(right, nudge));
    const stopA = left.stop?.index ?? null;
    const stopB = right.stop?.index ?? null;
    if (lost.length === 0 && gained.length === 0 && stopA === stopB) return;
    changes.push({ id: left.run.id, resolved: left.run.resolved, lost, gained, stopA, stopB });
  });
  return changes;
}

function inContext(result: ReplayResult, nudge: ReplayNudge): NudgeInContext {
  const around: string[] = [];
  for (let index = Math.max(0, nudge.index - 2); index <= Math.min(result.run.steps.length - 1, nudge.index + 2); index++) {
    around.push(`${index === nudge.index ? '>' : ' '} ${index + 1}. ${actionText(result.run.steps[index]!)}`);
  }
  return { ...nudge, around };
}

/** One recorded action for people: its tool and its main argument. */
export function actionText(step: { tool: string; args: Record<string, unknown>; raw?: string }): string {
  const main =
    step.args.command ??
    (step.args.pattern !== undefined ? `${String(step.args.pattern)} ${String(step.args.path ?? '')}` : (step.args.path ?? step.raw ?? ''));
  const text = `${step.tool} ${String(main)}`.replace(/\s+/g, ' ').trim();
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
