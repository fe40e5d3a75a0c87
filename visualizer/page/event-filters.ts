import { type Entry, text } from './entries.js';

/** Which kinds of event the list shows. */
export type Filter = 'model' | 'tools' | 'gate' | 'progress' | 'context' | 'phases' | 'steps' | 'other';

/** The chips over the event list; transitions that stay in their phase (one per XState microstep) and progress lines (one per turn) are hidden at first. */
export const FILTERS: Array<{ key: Filter; label: string; title: string; on: boolean }> = [
  { key: 'model', label: 'Model', title: 'Model calls: tokens and latency', on: true },
  { key: 'tools', label: 'Tools', title: 'Tool calls with their arguments', on: true },
  { key: 'gate', label: 'Gate & stalls', title: 'Gate decisions and stall nudges', on: true },
  { key: 'progress', label: 'Progress', title: 'What the stall detector counted as new after each turn (one line per turn with anything new)', on: false },
  { key: 'context', label: 'Context & budget', title: 'Context manager elisions and summaries, budget warnings', on: true },
  { key: 'phases', label: 'Phases', title: 'Transitions into another phase', on: true },
  { key: 'steps', label: 'Transitions', title: 'Every other transition (one per XState microstep)', on: false },
  { key: 'other', label: 'Run & raw', title: 'Start, end, retries, crashes, and lines of unknown kinds', on: true },
];

/** The chip an entry belongs to. */
export function filterOf(entry: Entry): Filter {
  switch (entry.kind) {
    case 'model':
    case 'calls_recovered':
    case 'call_ids':
    case 'arguments_repaired':
    case 'tool_calling':
      return 'model';
    case 'tool':
    case 'job':
    case 'secrets_masked':
    case 'mcp_server':
    case 'mcp_tools':
      return 'tools';
    case 'finish':
    case 'stall':
    case 'rule_action':
      return 'gate';
    case 'progress':
      return 'progress';
    case 'context':
    case 'budget_warning':
      return 'context';
    case 'transition':
      return text(entry.data, 'from').split('.')[0] !== text(entry.data, 'to').split('.')[0] ? 'phases' : 'steps';
    default:
      return 'other';
  }
}
