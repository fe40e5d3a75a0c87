import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';

// `node bare-loop.js <workspace> <times-file>`: the limit the whole-run section measures rein against. The
// smallest loop a Node program can be: the openai client, child_process and fs, nothing else; it sends the
// whole history every request, runs each command in `sh -c`, and writes the commands' times (spawn to exit,
// milliseconds) to <times-file> when it ends. OPENAI_BASE_URL names the endpoint.

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const [workspace, timesFile] = process.argv.slice(2) as [string, string];
const client = new OpenAI({ apiKey: 'bench', baseURL: process.env.OPENAI_BASE_URL });
const commandMs: number[] = [];

const stringTool = (name: string, fields: string[]) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: Object.fromEntries(fields.map((field) => [field, { type: 'string' }])), required: fields } },
});
const tools = [
  stringTool('run', ['command']),
  stringTool('read_file', ['path']),
  stringTool('edit_file', ['path', 'old', 'new']),
  { type: 'function' as const, function: { name: 'update_todo', parameters: { type: 'object', properties: { items: { type: 'array' } } } } },
  stringTool('finish', ['summary']),
];

function runCommand(command: string): Promise<string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd: workspace });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code) => {
      commandMs.push(performance.now() - started);
      resolve(`exit=${code}\n${Buffer.concat(chunks).toString('utf8')}`);
    });
  });
}

async function execute(name: string, args: Record<string, string>): Promise<string> {
  if (name === 'run') return runCommand(args.command!);
  if (name === 'read_file') return readFileSync(join(workspace, args.path!), 'utf8');
  if (name === 'edit_file') {
    const file = join(workspace, args.path!);
    writeFileSync(file, readFileSync(file, 'utf8').replace(args.old!, args.new!));
    return 'Edit applied.';
  }
  return 'ok';
}

const messages: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Make the constants right.' },
];
for (let finished = false; !finished; ) {
  const reply = await client.chat.completions.create({ model: 'stub-model', messages, tools });
  const message = reply.choices[0]!.message;
  messages.push(message);
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    if (call.function.name === 'finish') finished = true;
    messages.push({ role: 'tool', tool_call_id: call.id, content: await execute(call.function.name, JSON.parse(call.function.arguments)) });
  }
}
writeFileSync(timesFile, JSON.stringify(commandMs));
