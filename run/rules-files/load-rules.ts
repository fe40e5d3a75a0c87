import { existsSync } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { didYouMean } from '../../lib/did-you-mean.js';
import { UsageError } from '../../lib/errors.js';
import { readRegularFile } from '../../lib/regular-file.js';
import { RULES_FILE_NAMES } from '../../lib/state/harness-files.js';
import { jsonSyntaxError, yamlSyntaxError } from '../../lib/syntax-error.js';
import { formatZodError } from '../../lib/zod-error.js';
import { type GuardRegistry, registerGuards } from '../../machines/guards/registry.js';
import { type RuleActionRegistry, registerActions } from '../../machines/rule-actions.js';
import { checkRuleReferences } from '../../machines/rules-check.js';
import { withEndpointProfile } from '../../rules/endpoint-profiles.js';
import { HOOK_MOMENTS, type HookFunction } from '../../rules/hooks/schema.js';
import { foldMcpServers } from '../../rules/mcp-servers.js';
import { mergeRules, type Plain } from '../../rules/merge.js';
import { requirePreset } from '../../rules/presets.js';
import { type Rules, rulesSchema } from '../../rules/schema.js';
import {
  fingerprintRules,
  isCodeRulesFile,
  isTrustedRulesFile,
  isUntrusted,
  looseningsOf,
  type RulesFingerprint,
  sameFingerprint,
} from '../../rules/trust/index.js';
import { toolRegistry } from '../../tools/index.js';
import { enableRegistered, selectTools } from '../../tools/select-tools.js';
import type { AnyTool } from '../../tools/types.js';
import { type ConfigModule, importConfigModule } from './import-config.js';

/** File names looked up in the workspace when no `--config` is given. */
const CONFIG_NAMES: readonly string[] = RULES_FILE_NAMES;

interface LoadRulesOptions {
  preset?: string;
  configPath?: string;
  /** Looked in for a config file when `configPath` is not given. */
  workspace?: string;
  /** Command-line overrides, the last layer. */
  overrides?: Plain;
  /**
   * `rein resume`: the fingerprint the rules file had when the run started. A file or imported module that changed
   * since (the agent may have written it) is not run again unless a person trusted it as it is now.
   */
  startedWith?: RulesFingerprint;
  /**
   * `configPath` arrived from elsewhere (a queue job's rules file, fetched by a worker): not the person's own choice,
   * so trusted only when its sha256 is one the person running this listed; otherwise a code file is refused and a
   * data file may only keep or narrow the rules, as a repository's.
   */
  received?: ReceivedRules;
}

/** Where a rules file came from, and the sha256 hashes of the files the person running rein trusts from there. */
export interface ReceivedRules {
  from: string;
  trustedHashes: readonly string[];
  /** How to trust one, for the refusal (`start the worker with --trust-rules FILE`). */
  howToTrust: string;
}

/**
 * How far the rules file is trusted: `explicit` (named with --config: the user's own choice), `trusted` (a
 * repository's rules file a person trusted with `rein trust`, unchanged since, imports included), `repository` (a
 * repository's rules file nobody trusted: data only, and only what keeps or narrows the rules; rules/trust/loosening-rules.ts).
 */
type RulesTrust = 'explicit' | 'trusted' | 'repository';

export interface LoadedRules {
  rules: Rules;
  /** Where the layers came from, for `rein rules show`. */
  sources: string[];
  /** Guards registered by a `.ts`/`.js` rules file (`export const guards = { name: (view, params) => boolean }`). */
  guards: GuardRegistry;
  /** Tools registered by a rules file (`export const tools = [tool]`), added to rein's own. */
  tools: AnyTool[];
  /** Rule actions registered by a rules file (`export const actions = { name: (view, params) => ({ notices }) }`). */
  actions: RuleActionRegistry;
  /** Hook functions a rules module exports (`export const hookFunctions = { name: (event) => answer }`). */
  hookFunctions: Record<string, HookFunction>;
  /** The rules file used, if any (a resumed run reloads its guards and tools from it). */
  configPath?: string;
  /** Its fingerprint (hash, and the workspace modules it imports), when there is one. */
  fingerprint?: RulesFingerprint;
  trust?: RulesTrust;
  /** Warnings for the user (a --config file inside the workspace). */
  notices: string[];
}

/**
 * The effective rules: preset, then rules file, then command-line flags,
 * validated once. A bad file is a `UsageError` naming the file, the JSON
 * path, what was expected and what was found (exit code 2, nothing runs).
 *
 * @example const { rules } = await loadRules({ preset: 'strict', workspace: './repo' });
 */
export async function loadRules(options: LoadRulesOptions = {}): Promise<LoadedRules> {
  const sources: string[] = [];
  const preset = requirePreset(options.preset ?? 'default');
  sources.push(`preset ${preset.name}`);
  const configPath = options.configPath ? resolve(options.configPath) : findConfig(options.workspace);
  let fileLayer: Plain | undefined;
  let extensions: Extensions = { guards: {}, tools: [], actions: {}, hookFunctions: {} };
  const notices: string[] = [];
  const decided = configPath ? await decideTrust(configPath, options, notices) : undefined;
  if (configPath && decided) {
    ({ rules: fileLayer, extensions } = await readConfigFile(configPath, decided.trust));
    fileLayer = foldServersIn(fileLayer, configPath);
    sources.push(configPath);
  }
  if (options.overrides && Object.keys(options.overrides).length > 0) sources.push('command-line flags');
  const where = configPath ?? 'rules';
  // The endpoint profile fills in the model settings no layer sets.
  const merged = withEndpointProfile(mergeRules(preset.rules as Plain, fileLayer, options.overrides), where);
  const parsed = rulesSchema.safeParse(merged, { reportInput: true });
  // A flag that sets a key the file gets wrong must not hide the file's mistake: the file is checked without the flags too.
  const fileOnly = options.overrides && fileLayer ? withEndpointProfile(mergeRules(preset.rules as Plain, fileLayer), where) : null;
  const fileParsed = fileOnly ? rulesSchema.safeParse(fileOnly, { reportInput: true }) : null;
  const fileLines = fileParsed && !fileParsed.success ? formatZodError(fileParsed.error, { input: fileOnly, schema: rulesSchema }) : [];
  const mergedLines = parsed.success ? [] : formatZodError(parsed.error, { input: merged, schema: rulesSchema });
  const problems = [
    ...fileLines.map((line) => `${where}: ${line}`),
    ...mergedLines.filter((line) => !fileLines.includes(line)).map((line) => `${fileOnly ? 'command-line flags' : where}: ${line}`),
  ];
  if (!parsed.success || problems.length > 0) throw new UsageError(problems.join('\n'));
  // Names that rules refer to are checked here, so a bad file stops every command before anything runs.
  let rules = parsed.data;
  let registry: AnyTool[] = [];
  try {
    const guards = registerGuards(extensions.guards, where).map((guard) => guard.name);
    const actions = registerActions(extensions.actions, where).map((action) => action.name);
    registry = toolRegistry(extensions.tools, { source: where });
    rules = enableRegistered(parsed.data, registry);
    checkRuleReferences(rules, { guards, actions });
    selectTools(registry, rules.tools.enabled);
    checkHookFunctions(rules, extensions.hookFunctions);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(
      error.message
        .split('\n')
        .map((line) => (line.startsWith(`${where}: `) ? line : `${where}: ${line}`))
        .join('\n'),
    );
  }
  // After the file's own mistakes: a broken file is reported as broken first.
  if (decided?.trust === 'repository' && configPath)
    refuseLoosening({ configPath, below: preset.rules as Plain, fileLayer }, { workspace: options.workspace, received: options.received });
  return {
    rules,
    sources,
    ...extensions,
    notices,
    ...(configPath && decided ? { configPath, fingerprint: decided.fingerprint, trust: decided.trust } : {}),
  };
}

/** The rules file's fingerprint and how far it is trusted; throws when it may not be loaded at all. */
async function decideTrust(configPath: string, options: LoadRulesOptions, notices: string[]): Promise<{ trust: RulesTrust; fingerprint: RulesFingerprint }> {
  if (!existsSync(configPath)) throw new UsageError(`${configPath}: rules file not found`);
  const workspace = options.workspace ? resolve(options.workspace) : undefined;
  const fingerprint = await fingerprintRules(configPath, workspace ?? dirname(configPath));
  if (options.startedWith && !sameFingerprint(options.startedWith, fingerprint) && !isTrustedRulesFile(configPath, fingerprint))
    throw new UsageError(
      `${configPath}: the rules file, or a module it imports, changed since this run started (the agent may have written it); rein does not run it again. Review it, then \`rein trust ${configPath}\`, and resume again`,
    );
  if (options.received) {
    if (options.received.trustedHashes.includes(fingerprint.hash)) return { trust: 'trusted', fingerprint };
    if (isCodeRulesFile(configPath))
      throw new UsageError(
        `${configPath}: this rules file came from ${options.received.from} and is code, and rein runs no code it was not told to trust (sha256 ${fingerprint.hash.slice(0, 12)}…). Review it, then ${options.received.howToTrust}`,
      );
    return { trust: 'repository', fingerprint };
  }
  if (options.configPath) {
    if (workspace && fromWorkspace(configPath, workspace))
      notices.push(
        `rein: warning: --config ${configPath} lies inside the workspace, where the repository (or an agent) may have written it; rein loads it because you named it`,
      );
    return { trust: 'explicit', fingerprint };
  }
  if (isTrustedRulesFile(configPath, fingerprint)) return { trust: 'trusted', fingerprint };
  if (isCodeRulesFile(configPath))
    throw new UsageError(
      `${configPath}: this repository's rules file is code, and rein runs no repository code nobody trusted (or that changed since, imports included). Review it and the modules it imports, then run \`rein trust ${dirname(configPath)}\`; or pass your own rules with --config`,
    );
  return { trust: 'repository', fingerprint };
}

/** An untrusted rules file may keep or narrow the rules below it, never widen them (rules/trust/loosening-rules.ts). */
function refuseLoosening(
  { configPath, below, fileLayer }: { configPath: string; below: Plain; fileLayer: Plain | undefined },
  { workspace, received }: { workspace: string | undefined; received: ReceivedRules | undefined },
): void {
  const base = rulesSchema.safeParse(below);
  const withFile = rulesSchema.safeParse(mergeRules(below, fileLayer));
  if (!base.success || !withFile.success) return;
  const found = looseningsOf(base.data, withFile.data);
  if (found.length === 0) return;
  throw new UsageError(
    [
      `${configPath}: ${received ? `this rules file came from ${received.from} and is not trusted` : "this repository's rules file is not trusted"}, and it loosens the rules; rein applies what narrows them and refuses these:`,
      ...found.map((line) => `  ${line}`),
      received
        ? `Review the file, then ${received.howToTrust}`
        : `Review the file, then run \`rein trust ${workspace ?? dirname(configPath)}\` to use it as it is; or pass your own rules with --config`,
    ].join('\n'),
  );
}

/** A top-level `mcpServers` (the shape MCP clients document) read as `mcp.servers`, before anything judges the file. */
function foldServersIn(layer: Plain, configPath: string): Plain {
  try {
    return foldMcpServers(layer) as Plain;
  } catch (error) {
    throw new UsageError(`${configPath}: ${(error as Error).message}`);
  }
}

function fromWorkspace(file: string, workspace: string): boolean {
  const rel = relative(workspace, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function findConfig(workspace: string | undefined): string | undefined {
  if (!workspace) return undefined;
  const name = CONFIG_NAMES.find((candidate) => existsSync(resolve(workspace, candidate)));
  if (!name) return undefined;
  // A rules file an earlier run wrote is not loaded (it may be code) until a person has looked at it.
  if (isUntrusted(workspace, name)) {
    throw new UsageError(
      `${resolve(workspace, name)}: an agent run wrote this rules file; review it, then run \`rein trust ${workspace}\` (or pass it with --config)`,
    );
  }
  return resolve(workspace, name);
}

interface Extensions {
  guards: GuardRegistry;
  tools: AnyTool[];
  actions: RuleActionRegistry;
  hookFunctions: Record<string, HookFunction>;
}

/** Every `function` a hook names must be exported in `hookFunctions`: a missing one stops the run before it starts. */
function checkHookFunctions(rules: Rules, functions: Record<string, HookFunction>): void {
  for (const moment of HOOK_MOMENTS)
    rules.hooks[moment].forEach((spec, index) => {
      if (spec.function !== undefined && typeof functions[spec.function] !== 'function')
        throw new UsageError(
          `hooks.${moment}[${index}].function: no function "${spec.function}" in the rules module's hookFunctions export${didYouMean(spec.function, Object.keys(functions))}`,
        );
    });
}

const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

function readRulesText(path: string): string {
  try {
    return readRegularFile(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: cannot be read: ${(error as Error).message}`);
  }
}

async function readConfigFile(path: string, trust: RulesTrust): Promise<{ rules: Plain; extensions: Extensions }> {
  if (!existsSync(path)) throw new UsageError(`${path}: rules file not found`);
  // Checked once more where it is used: untrusted code is never imported.
  if (trust === 'repository' && isCodeRulesFile(path)) throw new UsageError(`${path}: an untrusted rules module is never run`);
  const extension = extname(path);
  let value: unknown;
  let extensions: Extensions = { guards: {}, tools: [], actions: {}, hookFunctions: {} };
  if (extension === '.json') {
    const text = readRulesText(path);
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${path}: not valid JSON: ${jsonSyntaxError(text, error)}`);
    }
  } else if (extension === '.yaml' || extension === '.yml') {
    const text = readRulesText(path);
    // Loaded only for a YAML file: a run with JSON rules or none never needs the parser.
    const { parseDocument } = await import('yaml');
    const document = parseDocument(text);
    const error = document.errors[0];
    if (error) throw new UsageError(`${path}: not valid YAML: ${yamlSyntaxError(text, error)}`);
    value = document.toJS();
  } else if (MODULE_EXTENSIONS.includes(extension)) {
    const module = await importConfigModule(path);
    value = module.default ?? module.rules ?? {};
    extensions = checkExtensions(path, module);
  } else {
    throw new UsageError(`${path}: rules files are .json, .yaml, .yml, .ts, .mts, .js or .mjs, not "${extension}"`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `${path}: expected an object of rules at the top level, found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    );
  }
  return { rules: value as Plain, extensions };
}

function checkExtensions(path: string, module: ConfigModule): Extensions {
  const guards = module.guards ?? {};
  if (typeof guards !== 'object' || guards === null || Array.isArray(guards))
    throw new UsageError(`${path}: export "guards" must be an object of named guards`);
  const tools = module.tools ?? [];
  if (!Array.isArray(tools)) throw new UsageError(`${path}: export "tools" must be an array of tools`);
  tools.forEach((tool: Partial<AnyTool>, index) => {
    if (!tool || typeof tool.name !== 'string' || typeof tool.execute !== 'function' || typeof tool.parameters?.safeParse !== 'function') {
      throw new UsageError(`${path}: tools[${index}]: expected { name, description, parameters: z.object(...), execute(args, ctx) }`);
    }
    if (tool.phases !== undefined && (!Array.isArray(tool.phases) || tool.phases.some((phase) => typeof phase !== 'string')))
      throw new UsageError(`${path}: tools[${index}].phases: expected the names of the phases the tool belongs in, found ${JSON.stringify(tool.phases)}`);
  });
  const actions = module.actions ?? {};
  if (typeof actions !== 'object' || actions === null || Array.isArray(actions))
    throw new UsageError(`${path}: export "actions" must be an object of named actions`);
  const hookFunctions = module.hookFunctions ?? {};
  if (typeof hookFunctions !== 'object' || hookFunctions === null || Array.isArray(hookFunctions))
    throw new UsageError(`${path}: export "hookFunctions" must be an object of named functions`);
  return {
    guards: guards as GuardRegistry,
    tools: tools as AnyTool[],
    actions: actions as RuleActionRegistry,
    hookFunctions: hookFunctions as Record<string, HookFunction>,
  };
}
