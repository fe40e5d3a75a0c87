import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createScriptedModel, extractiveSummary, type Script, scriptedIntake } from 'rein/actors';
import { ReinError } from 'rein/lib';
import type { Rules } from 'rein/rules';
import type { ModelSource } from 'rein/run';
import { createSimulatedAgent } from './agent.js';
import { harnessTexts } from './feedback.js';
import { traitsOf } from './registry.js';
import { type ReplyShape, replyShapeOf, reshapeScript } from './reply-shapes.js';
import { createSimulatedReviewer } from './reviewer.js';
import type { Simulation } from './simulation-schema.js';

/** Which simulated model a task runs: registered behaviours with the task's simulation block, or a module in the task folder. */
export type SimulatedModelChoice = { kind: 'registry'; names: string[]; simulation: Simulation } | { kind: 'module'; path: string };

/** What a task-provided model module's default export receives, once per run. */
interface ModuleModelContext {
  prompt: string;
  testCmd: string;
  tools: string[];
}

/** The model name used in traces and the price table: `simulated:<names>`. */
export function simulatedModelName(choice: SimulatedModelChoice): string {
  return choice.kind === 'registry' ? `simulated:${choice.names.join('+')}` : `simulated:${basename(choice.path)}`;
}

/**
 * A model source for a simulated model: a fresh scripted model per run that
 * sees the tool surface the harness offers. A module model is a file in the
 * task folder whose default export is `(context) => Script`.
 *
 * @example const model = await simulatedModelSource({ kind: 'registry', names: ['flood-context'], simulation }, rules, { prompt, testCmd });
 */
export async function simulatedModelSource(choice: SimulatedModelChoice, rules: Rules, task: { prompt: string; testCmd: string }): Promise<ModelSource> {
  const factory =
    choice.kind === 'registry'
      ? (tools: string[]): Script =>
          createSimulatedAgent({ traits: traitsOf(choice.names), simulation: choice.simulation, testCmd: task.testCmd, tools, texts: harnessTexts(rules) })
      : await loadModuleFactory(choice.path, task);
  return {
    name: simulatedModelName(choice),
    description: 'simulated model (offline; it tests the harness, it is not a model benchmark)',
    // Replies go through the same intake as an endpoint's: a text-calling model's calls are recovered unless the rules turn that off.
    createActor: (schemas, hooks) =>
      createScriptedModel(reshapeScript(factory(toolNames(schemas)), shapesOf(choice)), { intake: scriptedIntake(schemas, hooks) }).actor,
    summarize: extractiveSummary,
  };
}

/**
 * The model of every agent a run's rules declare, for a simulated task: a simulated reviewer (reviewer.ts) that knows
 * the task's fixes. It bears the parent's model name, so the same price is charged for its tokens.
 *
 * @example const agentModels = simulatedAgentModels(choice, rules);
 */
export function simulatedAgentModels(choice: SimulatedModelChoice, rules: Rules): Record<string, ModelSource> {
  if (choice.kind !== 'registry') return {};
  const { simulation } = choice;
  return Object.fromEntries(
    Object.keys(rules.agents).map((agent): [string, ModelSource] => [
      agent,
      {
        name: simulatedModelName(choice),
        description: 'simulated reviewer (offline; it tests the harness, it is not a model benchmark)',
        createActor: (schemas, hooks) => createScriptedModel(createSimulatedReviewer(simulation), { intake: scriptedIntake(schemas, hooks) }).actor,
        summarize: extractiveSummary,
      },
    ]),
  );
}

function shapesOf(choice: SimulatedModelChoice): ReplyShape[] {
  if (choice.kind !== 'registry') return [];
  return choice.names.flatMap((name) => {
    const shape = replyShapeOf(name);
    return shape ? [shape] : [];
  });
}

async function loadModuleFactory(path: string, task: { prompt: string; testCmd: string }): Promise<(tools: string[]) => Script> {
  const module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  if (typeof module.default !== 'function') throw new ReinError(`${path}: a simulated model module must export a default function (context) => script`);
  const create = module.default as (context: ModuleModelContext) => Script;
  return (tools) => create({ prompt: task.prompt, testCmd: task.testCmd, tools });
}

function toolNames(schemas: unknown[]): string[] {
  return schemas.flatMap((schema) => {
    const name = (schema as { function?: { name?: unknown } }).function?.name;
    return typeof name === 'string' ? [name] : [];
  });
}
