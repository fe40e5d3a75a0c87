/**
 * How mini-swe-agent itself finds the action in a reply, by version: the
 * producer's own regular expression (its `re.findall(regex, content,
 * re.DOTALL)`), or the one the trajectory's config names. Exactly one match
 * is an action; zero or several is a format error (mini-swe-agent answers it
 * and the model tries again).
 *
 * - 1.0 – 1.11: ```` ```bash\n(.*?)\n``` ````
 * - 1.12 – 1.17: ```` ```bash\s*\n(.*?)\n``` ```` (1.16 on: `config.agent.action_regex` overrides it)
 * - 2.x text-based models: ```` ```mswea_bash_command\s*\n(.*?)\n``` ```` (`config.model.action_regex` overrides it);
 *   2.x tool-call models record their actions in `extra.actions` instead
 */

const V1_0 = String.raw`\`\`\`bash\n(.*?)\n\`\`\``;
const V1_12 = String.raw`\`\`\`bash\s*\n(.*?)\n\`\`\``;
const V2_TEXT = String.raw`\`\`\`mswea_bash_command\s*\n(.*?)\n\`\`\``;

/** A trajectory's `info`, as far as the action regex depends on it. */
interface TrajectoryInfo {
  mini_version?: unknown;
  config?: { agent?: { action_regex?: unknown }; model?: { action_regex?: unknown } };
}

/** The regular expression mini-swe-agent used for this trajectory's replies, as a JS RegExp (Python's DOTALL is `s`). */
export function actionRegexOf(info: TrajectoryInfo, format: unknown): RegExp {
  const configured = info.config?.agent?.action_regex ?? info.config?.model?.action_regex;
  if (typeof configured === 'string' && configured) return pythonRegex(configured);
  const version = typeof info.mini_version === 'string' ? info.mini_version.split('.').map(Number) : null;
  const [major = 1, minor = 15] = version ?? [];
  if (format === 'mini-swe-agent-1.1' || major >= 2) return pythonRegex(V2_TEXT);
  return pythonRegex(major === 1 && minor < 12 ? V1_0 : V1_12);
}

/** The actions `re.findall` returns: the first group of each match (or the whole match when the regex has none), stripped as mini-swe-agent strips them. */
export function findActions(regex: RegExp, content: string): string[] {
  return [...content.matchAll(regex)].map((match) => (match[1] ?? match[0]).trim());
}

function pythonRegex(source: string): RegExp {
  // Python's inline flags and named groups in the JS spelling; the rest of a simple pattern reads the same.
  const translated = source.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  try {
    return new RegExp(translated, 'gs');
  } catch (error) {
    throw new Error(`the trajectory's action_regex ${JSON.stringify(source)} is not a regular expression rein can read (${(error as Error).message})`);
  }
}
