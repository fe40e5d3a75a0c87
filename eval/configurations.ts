import { createHash } from 'node:crypto';
import { basename, extname, resolve } from 'node:path';
import { stableStringify, UsageError } from 'rein/lib';
import { findPreset, type Rules, requirePreset } from 'rein/rules';
import { loadRules, type ReceivedRules } from 'rein/run';

/** One harness configuration under test: a preset, optionally with a rules file on top. */
export interface Configuration {
  label: string;
  preset: string;
  configPath?: string;
  /** `configPath` is a queue job's rules file, fetched by a worker: trusted only by the hashes the worker was given. */
  received?: ReceivedRules;
}

/** A configuration with its effective rules (before any task layer) and their hash. */
export interface ResolvedConfiguration extends Configuration {
  rules: Rules;
  hash: string;
}

/**
 * The configurations of `--preset A --preset B --config F …`, in order: each
 * `--preset NAME` is one configuration labelled NAME; each `--config FILE` is
 * one configuration, the default preset plus FILE, labelled with FILE's base
 * name; `--config PRESET:FILE` puts FILE over another preset (label
 * `PRESET:base`). With neither flag there is one configuration, `default`.
 *
 * @example parseConfigurations(['default', 'no-plan'], ['small-window.json'])
 */
export function parseConfigurations(presets: readonly string[], configs: readonly string[]): Configuration[] {
  const list: Configuration[] = presets.map((preset) => ({ label: requirePreset(preset).name, preset }));
  for (const spec of configs) list.push(configFromSpec(spec));
  if (list.length === 0) list.push({ label: 'default', preset: 'default' });
  const seen = new Set<string>();
  for (const configuration of list) {
    if (seen.has(configuration.label)) throw new UsageError(`configuration "${configuration.label}" is given twice`);
    seen.add(configuration.label);
  }
  return list;
}

function configFromSpec(spec: string): Configuration {
  const colon = spec.indexOf(':');
  const prefix = colon > 0 ? spec.slice(0, colon) : '';
  const preset = prefix && findPreset(prefix) ? prefix : 'default';
  const path = preset === prefix ? spec.slice(colon + 1) : spec;
  const base = basename(path, extname(path));
  return { label: preset === 'default' ? base : `${preset}:${base}`, preset, configPath: resolve(path) };
}

/**
 * Loads a configuration's rules once (a bad file is a usage error before
 * anything runs) and hashes them, so a resumed eval can tell whether a
 * label still means the same rules.
 */
export async function resolveConfiguration(configuration: Configuration): Promise<ResolvedConfiguration> {
  const { rules } = await loadRules({
    preset: configuration.preset,
    ...(configuration.configPath ? { configPath: configuration.configPath } : {}),
    ...(configuration.received ? { received: configuration.received } : {}),
  });
  const hash = createHash('sha256').update(stableStringify(rules)).digest('hex').slice(0, 12);
  return { ...configuration, rules, hash };
}
