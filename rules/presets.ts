import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from '../lib/errors.js';
import type { RulesInput } from './schema.js';

/** A named rules layer that reproduces one configuration the seed's evidence compares. */
export interface Preset {
  name: string;
  /** Which finding it reproduces, in one line (shown by `rein rules show` and the README). */
  finding: string;
  rules: RulesInput;
}

/** The ablation presets: each removes or changes one component, so paired runs isolate it. */
export const PRESETS: readonly Preset[] = [
  { name: 'default', finding: 'All ten components on: the full harness.', rules: {} },
  {
    name: 'bash-only',
    finding: 'Fan et al.: a shell-only tool surface (run + finish) flips model rankings and cut Nemotron-3 550B cost from $2.33 to $1.11.',
    rules: {
      tools: { enabled: ['run', 'finish'] },
      phases: { plan: { enabled: false } },
      verification: { commandsCountAsEdits: true },
    },
  },
  {
    name: 'no-context-management',
    finding: 'Fan et al. T0: no context management; at 32K Nemotron-3 550B fell from 58.4% to 6.4% because runs die when the window fills.',
    rules: { context: { enabled: false } },
  },
  {
    name: 'no-stall-detector',
    finding: 'Lewis; LangChain: without loop detection agents repeat the same failing step 10+ times until the budget runs out.',
    rules: { stall: { enabled: false } },
  },
  {
    name: 'no-verification-gate',
    finding: 'LangChain; the seed: without a gate agents finish on "looks right to me" without a passing test run.',
    rules: { verification: { gate: false } },
  },
  {
    name: 'no-plan',
    finding: 'Fan et al.: removing planning dropped Nemotron-3 30B from 25.2% to 13.6% and raised 550B cost from $2.33 to $3.31.',
    rules: { phases: { plan: { enabled: false } }, tools: { enabled: ['read_file', 'grep', 'edit_file', 'run', 'finish'] } },
  },
  {
    name: 'strict',
    finding:
      'Anthropic; LangChain: plan first. No edits and no commands (a command can edit too) until a todo list is written (plan exits only on todoWritten).',
    rules: {
      phases: {
        plan: {
          tools: ['read_file', 'grep', 'update_todo', 'finish'],
          exits: [{ guard: 'todoWritten', to: 'build' }],
        },
      },
    },
  },
];

export function findPreset(name: string): Preset | undefined {
  return PRESETS.find((preset) => preset.name === name);
}

/** The preset names, for help texts and errors. */
export function presetNames(): string[] {
  return PRESETS.map((preset) => preset.name);
}

/**
 * A preset by name, or a usage error that lists every preset (with a "did you
 * mean" for a misspelling): every command that takes `--preset` goes through here.
 */
export function requirePreset(name: string): Preset {
  const preset = findPreset(name);
  if (!preset) throw new UsageError(`unknown preset "${name}"${didYouMean(name, presetNames())}; presets: ${presetNames().join(', ')}`);
  return preset;
}
