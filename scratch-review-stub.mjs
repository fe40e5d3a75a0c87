// usage: node scratch-review-stub.mjs MODE  -> prints URL, serves until killed; logs requests to /tmp/review-d/stub-<MODE>.log
import { startOpenAIStub } from '/work/main/dist/testing/openai-stub.js';
import { appendFileSync, writeFileSync } from 'node:fs';
const mode = process.argv[2] ?? 'agent';
const log = `/tmp/review-d/stub-${mode}.log`;
writeFileSync(log, '');
function text(m) { return typeof m.content === 'string' ? m.content : JSON.stringify(m.content); }
function approxTokens(req, cpt) { return Math.ceil(req.messages.map(text).join('').length / cpt); }
const policies = {
  agent(req) {
    const last = req.messages.at(-1); const t = text(last);
    const hasTool = req.messages.some((m) => m.role === 'tool');
    if (!hasTool) return { toolCalls: [{ name: 'update_todo', arguments: { items: [{ task: 'fix add', done: false }, { task: 'run tests', done: false }] } }] };
    const toolMsgs = req.messages.filter((m) => m.role === 'tool').length;
    const seq = [
      { name: 'read_file', arguments: { path: 'add.js' } },
      { name: 'run', arguments: { command: 'node --test' } },
      { name: 'edit_file', arguments: { path: 'add.js', old: 'a - b', new: 'a + b' } },
      { name: 'run', arguments: { command: 'node --test' } },
      { name: 'finish', arguments: { summary: 'fixed' } },
    ];
    return { toolCalls: [seq[Math.min(toolMsgs - 1, seq.length - 1)]] };
  },
};
const stub = await startOpenAIStub(async (req, i) => {
  appendFileSync(log, JSON.stringify({ i, max_tokens: req.max_tokens, max_completion_tokens: req.max_completion_tokens, messages: req.messages }) + '\n');
  if (mode.startsWith('agent')) {
    const a = policies.agent(req);
    return { ...a, usage: { prompt_tokens: approxTokens(req, 2.5), completion_tokens: 20 } };
  }
  if (mode === 'ctx') return { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }) };
  if (mode === 'vllm') return { status: 400, body: JSON.stringify({ object: 'error', message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 }) };
  if (mode === 'runcmd') {
    const cmd = process.env.STUB_CMD;
    const toolMsgs = req.messages.filter((m) => m.role === 'tool').length;
    if (toolMsgs === 0) return { toolCalls: [{ name: 'run', arguments: { command: cmd } }] };
    return { toolCalls: [{ name: 'finish', arguments: { summary: 'x' } }] };
  }
  if (mode === 'script') {
    const calls = JSON.parse(process.env.STUB_SCRIPT);
    const toolMsgs = req.messages.filter((m) => m.role === 'tool').length;
    return { toolCalls: [calls[Math.min(toolMsgs, calls.length - 1)]], usage: { prompt_tokens: approxTokens(req, 2.5), completion_tokens: 20 } };
  }
});
console.log(stub.url);
