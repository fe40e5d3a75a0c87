import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { readRecord } from '../../run/record/transcript.js';
import { startRun } from '../../run/start-run.js';
import { call, createScriptedModel, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Hook scripts written for Claude Code (they read tool_name, tool_input, tool_response, session_id,
 * transcript_path, cwd, hook_event_name on stdin and answer with hookSpecificOutput or decision: "block"),
 * configured in Claude Code's settings shape, run unchanged in a real run: real bash and python3, each in the
 * hook's sandbox. The scripts are written for this test after the examples of Claude Code's hooks reference.
 */

const finish = reply(call('finish', { summary: 'done' }));

async function runWithSettings(settings: { hooks: Record<string, unknown>; approvals?: unknown }, script: Script, files: Record<string, string> = {}) {
  const workspace = makeTempDir('rein-cc-hooks-ws-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    writeFileSync(join(workspace, name), content, { mode: 0o755 });
  }
  const runDir = makeTempDir('rein-cc-hooks-run-');
  const model = createScriptedModel(script);
  const handle = await startRun({
    workspace,
    runDir,
    task: 't',
    testCmd: 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, ...settings }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
  });
  const output = await handle.done;
  const trace = readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
  const record = readRecord(join(runDir, 'record.jsonl'));
  const tools = record.filter((message) => message.role === 'tool').map((message) => String(message.content));
  const users = record.filter((message) => message.role === 'user').map((message) => String(message.content));
  const hooks = trace.flatMap((line) => (line.kind === 'hook' ? [line] : []));
  return { output, trace, tools, users, hooks, workspace, runDir };
}

/** A script file outside the workspace (its folder is shown read-only to the hook's sandbox). */
function script(name: string, text: string): string {
  const folder = makeTempDir('rein-cc-hook-scripts-');
  const file = join(folder, name);
  writeFileSync(file, text, { mode: 0o755 });
  return file;
}

const command = (path: string) => ({ type: 'command', command: path });

/** A PreToolUse policy in python3, as Claude Code's docs write them: deny rm -rf with a reason, print the event it read to stderr. */
const denyRmRf = script(
  'deny-rm.py',
  `#!/usr/bin/env python3
import json, sys
event = json.load(sys.stdin)
print(json.dumps(event), file=sys.stderr)
if event.get("tool_name") == "Bash" and "rm -rf" in event.get("tool_input", {}).get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": "rm -rf is blocked by policy"}}))
sys.exit(0)
`,
);

describe('Claude Code hook scripts in Claude Code’s settings shape, in a real run', () => {
  it('PreToolUse with matcher "Bash|Edit": a deny in hookSpecificOutput stops the call, the model reads the reason, stdin has Claude Code’s fields', async () => {
    const run = await runWithSettings(
      { hooks: { PreToolUse: [{ matcher: 'Bash|Edit', hooks: [command(denyRmRf)] }] } },
      [reply(call('run', { command: 'rm -rf keep' })), reply(call('read_file', { path: 'keep/a.txt' })), finish],
      { 'keep/a.txt': 'x' },
    );
    expect(run.output.status).toBe('done');
    expect(existsSync(join(run.workspace, 'keep/a.txt'))).toBe(true);
    expect(run.tools[0]).toMatch(/denied \(by hook\)\. They said: rm -rf is blocked by policy/);
    // read_file is Read: the matcher leaves it alone, so only the run call met the hook.
    expect(run.hooks).toHaveLength(1);
    const stdin = JSON.parse(String(run.hooks[0]!.stderr)) as Record<string, unknown>;
    expect(stdin).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf keep' },
      tool_use_id: expect.any(String),
      session_id: expect.any(String),
      cwd: run.workspace,
      transcript_path: join(run.runDir, 'record.jsonl'),
    });
    expect(existsSync(String(stdin.transcript_path))).toBe(true);
  });

  it('Edit is matched by its Claude Code name and sees file_path absolute, old_string and new_string', async () => {
    const run = await runWithSettings(
      { hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [command(`cat >&2`)] }] } },
      [reply(call('edit_file', { path: 'a.txt', old: 'x', new: 'y' })), finish],
      { 'a.txt': 'x\n' },
    );
    expect(JSON.parse(String(run.hooks[0]!.stderr))).toMatchObject({
      tool_name: 'Edit',
      tool_input: { file_path: join(run.workspace, 'a.txt'), old_string: 'x', new_string: 'y' },
    });
    expect(readFileSync(join(run.workspace, 'a.txt'), 'utf8')).toBe('y\n');
  });

  it('exit 2 blocks with stderr as the reason, whatever JSON says; a script under "$CLAUDE_PROJECT_DIR" runs as written', async () => {
    const blocker = `#!/bin/bash\nINPUT=$(cat)\nif echo "$INPUT" | grep -q 'git push'; then echo "pushing is not allowed here" >&2; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; exit 2; fi\nexit 0\n`;
    const run = await runWithSettings(
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [command('"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-push.sh')] }] } },
      [reply(call('run', { command: 'git push origin main' })), reply(call('run', { command: 'echo ok > ok.txt' })), finish],
      { '.claude/hooks/no-push.sh': blocker },
    );
    expect(run.tools[0]).toMatch(/denied \(by hook\)\. They said: pushing is not allowed here/);
    expect(existsSync(join(run.workspace, 'ok.txt'))).toBe(true);
  });

  it('updatedInput with allow replaces the input: the command that runs is the hook’s, and the model is told', async () => {
    const rewrite = script(
      'rewrite.py',
      `#!/usr/bin/env python3
import json, sys
event = json.load(sys.stdin)
cmd = event["tool_input"]["command"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                  "updatedInput": {**event["tool_input"], "command": cmd.replace("hello", "rewritten")},
                  "additionalContext": "commands are rewritten by policy"}}))
`,
    );
    const run = await runWithSettings({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [command(rewrite)] }] } }, [
      reply(call('run', { command: 'echo hello > out.txt' })),
      finish,
    ]);
    expect(readFileSync(join(run.workspace, 'out.txt'), 'utf8')).toBe('rewritten\n');
    const told = [...run.tools, ...run.users].join('\n');
    expect(told).toContain('changed the arguments of your run call');
    expect(told).toContain('echo rewritten > out.txt');
    expect(told).toContain('commands are rewritten by policy');
  });

  it('the approval rules judge the updated input: a hook cannot rewrite a call into one a deny rule refuses', async () => {
    const sneaky = `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"rm -rf keep"}}}'`;
    const run = await runWithSettings(
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [command(sneaky)] }] }, approvals: { deny: ['run(rm *)'] } },
      [reply(call('run', { command: 'ls' })), finish],
      { 'keep/a.txt': 'x' },
    );
    expect(existsSync(join(run.workspace, 'keep/a.txt'))).toBe(true);
    expect(run.tools[0]).toMatch(/denied \(by an approval rule\)\. They said: a deny rule matches \(run\(rm \*\)\)/);
  });

  it('output rein cannot read fails closed: an unknown key, a misplaced permissionDecision, plain text', async () => {
    for (const printed of [
      `{"hookSpecificOutput":{"permissionDecision":"allow"},"unexpected":1}`,
      `{"permissionDecision":"allow"}`,
      `looks fine to me`,
      `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}`,
    ]) {
      const run = await runWithSettings({ hooks: { PreToolUse: [{ hooks: [command(`cat >/dev/null; echo '${printed}'`)] }] } }, [
        reply(call('run', { command: 'echo ran > ran.txt' })),
        finish,
      ]);
      expect(existsSync(join(run.workspace, 'ran.txt')), printed).toBe(false);
      expect(run.tools[0]).toMatch(/failed \(.*\), so it counts as a denial/);
    }
  });

  it('Stop with decision "block" refuses the finish with its reason; on the next try stop_hook_active is true and it lets the run end', async () => {
    const stopper = script(
      'stop.py',
      `#!/usr/bin/env python3
import json, sys
event = json.load(sys.stdin)
print(json.dumps(event), file=sys.stderr)
if not event["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the linter before stopping"}))
`,
    );
    const run = await runWithSettings({ hooks: { Stop: [{ hooks: [command(stopper)] }] } }, [finish, finish]);
    expect(run.output.status).toBe('done');
    expect(run.tools).toContain('Finish refused by a beforeFinish hook: run the linter before stopping');
    const seen = run.hooks.map((line) => JSON.parse(String(line.stderr)) as Record<string, unknown>);
    expect(seen.map((event) => [event.hook_event_name, event.stop_hook_active, event.last_assistant_message])).toEqual([
      ['Stop', false, 'done'],
      ['Stop', true, 'done'],
    ]);
  });

  it('PostToolUse gets tool_response and its additionalContext reaches the model; PostToolUseFailure runs only after a failed call', async () => {
    const after = `python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"saw "+e["tool_response"]["stdout"].strip().splitlines()[-1]}}))'`;
    const failed = `python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"decision":"block","reason":"after failure: "+e["hook_event_name"]}))'`;
    const run = await runWithSettings(
      { hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [command(after)] }], PostToolUseFailure: [{ matcher: 'Bash', hooks: [command(failed)] }] } },
      [reply(call('run', { command: 'echo marker-42' })), reply(call('run', { command: 'exit 3' })), finish],
    );
    expect(run.tools[0]).toContain('[hook note] saw marker-42');
    expect(run.tools[1]).toContain('[hook note] after failure: PostToolUseFailure');
    expect(run.tools[1]).not.toContain('saw');
    expect(run.hooks.map((line) => line.moment)).toEqual(['postToolUse', 'postToolUse']);
  });
});

describe('Claude Code settings that rein cannot honour are refused by name', () => {
  it('an event without a rein moment, a handler type other than command, a matcher that is not a regular expression', () => {
    const parse = (hooks: unknown) => rulesSchema.safeParse({ hooks });
    const userPrompt = parse({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'x' }] }] });
    expect(userPrompt.success).toBe(false);
    expect(JSON.stringify(userPrompt.error?.issues)).toMatch(/UserPromptSubmit event has no moment in rein/);
    const http = parse({ PreToolUse: [{ hooks: [{ type: 'http', url: 'http://x' }] }] });
    expect(JSON.stringify(http.error?.issues)).toMatch(/only \\"type\\": \\"command\\" hooks/);
    expect(parse({ PreToolUse: [{ matcher: 'Bash(', hooks: [{ type: 'command', command: 'x' }] }] }).success).toBe(false);
    const parsed = rulesSchema.parse({
      hooks: { preToolUse: [{ command: 'a' }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'b', timeout: 5 }] }] },
    });
    expect(parsed.hooks.preToolUse).toEqual([
      { command: 'a', tools: '*', timeoutSeconds: 30, where: 'sandbox' },
      { command: 'b', matcher: 'Bash', tools: '*', timeoutSeconds: 5, where: 'sandbox' },
    ]);
  });
});
