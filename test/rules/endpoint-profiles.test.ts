import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAIModelSource } from '../../actors/model/model-source.js';
import { UsageError } from '../../lib/errors.js';
import { ENDPOINT_PROFILES } from '../../rules/endpoint-profiles.js';
import { rulesSchema } from '../../rules/schema.js';
import { loadRules } from '../../run/rules-files/load-rules.js';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

function rulesFile(rules: unknown): string {
  const path = join(makeTempDir('rein-profile-'), 'rein.config.json');
  writeFileSync(path, JSON.stringify(rules));
  return path;
}

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('endpoint profiles (model.profile)', () => {
  it('each profile is valid model settings (the table cannot hold a setting the schema refuses)', () => {
    for (const profile of ENDPOINT_PROFILES) expect(() => rulesSchema.parse({ model: { profile: profile.name, ...profile.settings } })).not.toThrow();
  });

  it("sets the server's defaults, and a setting beside it wins, extraBody key by key", async () => {
    const { rules } = await loadRules({
      configPath: rulesFile({ model: { profile: 'vllm-qwen3', toolCalling: 'native', extraBody: { top_k: 20 } } }),
    });
    expect(rules.model).toMatchObject({
      profile: 'vllm-qwen3',
      toolCalling: 'native',
      maxTokensParam: 'max_tokens',
      extraBody: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 },
    });
  });

  it('a command-line flag over a profile from the file: the flag wins, the rest of the profile stays', async () => {
    const { rules } = await loadRules({ configPath: rulesFile({ model: { profile: 'openai-reasoning' } }), overrides: { model: { reasoningEffort: 'high' } } });
    expect(rules.model).toMatchObject({ systemRole: 'developer', maxTokensParam: 'max_completion_tokens', reasoningEffort: 'high' });
  });

  it('an unknown profile is a usage error naming the file, the nearest profile and the known ones', async () => {
    const path = rulesFile({ model: { profile: 'vlm' } });
    const error = await loadRules({ configPath: path }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `${path}: model.profile: unknown endpoint profile "vlm" (did you mean "vllm"?); known: ${ENDPOINT_PROFILES.map((profile) => profile.name).join(', ')}`,
    );
  });

  it("the profile's settings reach the wire: OpenAI reasoning models get max_completion_tokens, the developer role and reasoning_effort", async () => {
    stub = await startOpenAIStub(() => ({ content: 'summary' }));
    const { rules } = await loadRules({ configPath: rulesFile({ model: { profile: 'openai-reasoning' } }) });
    const source = openAIModelSource({ model: 'o4-mini', baseURL: stub.url }, rules);
    await source.summarize('Summarize.', 'transcript', new AbortController().signal);
    const sent = stub.requests[0]! as unknown as Record<string, unknown> & { messages: Array<{ role: string }> };
    expect(sent.max_completion_tokens).toBe(1024);
    expect(sent.max_tokens).toBeUndefined();
    expect(sent.reasoning_effort).toBe('medium');
    expect(sent.messages[0]!.role).toBe('developer');
  });

  it('`rein rules show` prints the settings in effect and says which the profile gave and which were changed beside it', async () => {
    const path = rulesFile({ model: { profile: 'ollama', toolCalling: 'prompted' } });
    const shown = await runCli(['rules', 'show', '--config', path], { env: cleanEnv() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).model).toMatchObject({ profile: 'ollama', toolCalling: 'prompted', maxTokensParam: 'max_tokens' });
    expect(shown.stderr).toContain(
      'rein: model.profile "ollama" (Ollama (`…:11434/v1`)): model.toolCalling "prompted" (the profile\'s "auto", changed beside it), model.maxTokensParam "max_tokens", model.systemRole "system"',
    );
    const listed = await runCli(['rules', 'profiles'], { env: cleanEnv() });
    expect(
      listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[0]),
    ).toEqual(ENDPOINT_PROFILES.map((profile) => profile.name));
  });
});
