import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAIModelSource } from '../../actors/model/model-source.js';
import { loadRules } from '../../run/rules-files/load-rules.js';
import { startRun } from '../../run/start-run.js';
import { type OpenAIStub, type StubAnswer, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

// The ids a run sends back to a real HTTP endpoint: the provider's exactly as it gave them, when the endpoint
// accepts them; rein's own, in the form the endpoint profile says, where it gave none or one it would refuse.

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

type Sent = { messages: Array<{ role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> }> };

async function runAgainst(profile: string, answers: StubAnswer[]) {
  stub = await startOpenAIStub((_request, index) => answers[index] ?? { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] });
  const workspace = makeTempDir('rein-ids-');
  writeFiles(workspace, { 'a.txt': 'hello\n' });
  const config = join(makeTempDir('rein-ids-config-'), 'rules.json');
  writeFileSync(config, JSON.stringify({ model: { profile }, phases: { plan: { enabled: false } }, verification: { gate: false }, budgets: { maxSteps: 4 } }));
  const { rules } = await loadRules({ configPath: config });
  const handle = await startRun({
    workspace,
    task: 'Read a.txt.',
    testCmd: '',
    rules,
    model: openAIModelSource({ model: 'm', baseURL: stub.url }, rules),
    runDir: join(makeTempDir('rein-ids-run-'), 'run'),
  });
  await handle.done;
  return stub.requests as unknown as Sent[];
}

/** The ids of the assistant's calls and of the tool results in the last request, in order. */
const idsSent = (requests: Sent[]) => {
  const last = requests.at(-1)!;
  return {
    calls: last.messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)),
    results: last.messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id!] : [])),
  };
};

describe('tool-call ids sent back to the endpoint', () => {
  it("a vLLM or llama.cpp id is sent back exactly as it came, however short (Ollama's call_ + 8 characters included)", async () => {
    const requests = await runAgainst('vllm', [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_ab12cd34' }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, id: '0' }] },
    ]);
    expect(idsSent(requests)).toEqual({ calls: ['call_ab12cd34', '0'], results: ['call_ab12cd34', '0'] });
  });

  it('Mistral: a valid nine-character id goes back as it came; an id Mistral would refuse, or none, becomes nine letters and digits', async () => {
    const requests = await runAgainst('mistral', [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, id: 'aB3dE6gH9' }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_0fypS1hVX' }] },
      { content: '[TOOL_CALLS]read_file[ARGS]{"path": "a.txt"}' },
    ]);
    const { calls, results } = idsSent(requests);
    expect(calls[0]).toBe('aB3dE6gH9');
    expect(calls).toHaveLength(3);
    for (const id of calls) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(calls).size).toBe(3);
    expect(results).toEqual(calls);
  });
});
