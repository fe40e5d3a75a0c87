import { describe, expect, it } from 'vitest';
import { argsHash, callFacts } from '../../../rules/approvals/call-facts.js';
import { type ApprovalPolicy, judgeCall, policyCanStop } from '../../../rules/approvals/evaluate.js';
import { wildcard } from '../../../rules/approvals/patterns.js';
import { approvalModeNotice, approvalPresetLayer, unsandboxedAsks } from '../../../rules/approvals/presets.js';
import { type RememberedDecision, toRemember } from '../../../rules/approvals/remembered.js';
import { approvalsSchema, phaseApprovalsSchema } from '../../../rules/approvals/schema.js';

const policyOf = (global: object, phase?: object): ApprovalPolicy => ({
  global: approvalsSchema.parse(global),
  ...(phase ? { phase: phaseApprovalsSchema.parse(phase) } : {}),
});
const judge = (tool: string, args: object | string, policy: ApprovalPolicy, remembered: RememberedDecision[] = []) => {
  const raw = typeof args === 'string' ? args : JSON.stringify(args);
  return judgeCall(callFacts(tool, raw), policy, remembered, argsHash(tool, raw));
};

describe('approval rules: deny, then remembered, then ask, then allow, then the default (rules/approvals/evaluate.ts)', () => {
  const cases: Array<[string, string, object | string, object, object | undefined, 'allow' | 'ask' | 'deny', string]> = [
    ['no rules: the default allows', 'run', { command: 'ls' }, {}, undefined, 'allow', 'default'],
    ['a default of ask asks', 'edit_file', { path: 'a.ts' }, { default: 'ask' }, undefined, 'ask', 'default'],
    ['a tool name in deny', 'run', { command: 'ls' }, { deny: ['run'] }, undefined, 'deny', 'deny'],
    ['deny wins over allow of the same call', 'run', { command: 'ls' }, { deny: ['run'], allow: ['run'] }, undefined, 'deny', 'deny'],
    ['ask wins over allow', 'run', { command: 'ls' }, { ask: ['run'], allow: ['run(ls)'] }, undefined, 'ask', 'ask'],
    ['allow wins over a default of ask', 'read_file', { path: 'a' }, { default: 'ask', allow: ['read_file'] }, undefined, 'allow', 'allow'],
    ['MCP tool pattern', 'mcp__github__create_issue', {}, { ask: ['mcp__github__*'] }, undefined, 'ask', 'ask'],
    ['MCP pattern does not reach another server', 'mcp__slack__post', {}, { ask: ['mcp__github__*'] }, undefined, 'allow', 'default'],
    ['command pattern in a rule string', 'run', { command: 'git push origin main' }, { ask: ['run(git push *)'] }, undefined, 'ask', 'ask'],
    ['command pattern does not match another command', 'run', { command: 'git status' }, { ask: ['run(git push *)'] }, undefined, 'allow', 'default'],
    ['deny catches a part of a compound command', 'run', { command: 'ls && rm -rf build' }, { deny: ['run(rm *)'] }, undefined, 'deny', 'deny'],
    ['deny catches a command substitution', 'run', { command: 'echo $(rm -rf x)' }, { deny: ['run(rm *)'] }, undefined, 'deny', 'deny'],
    ['allow never covers a compound command', 'run', { command: 'cat a; rm b' }, { default: 'ask', allow: ['run(cat *)'] }, undefined, 'ask', 'default'],
    ['allow never covers a second line', 'run', { command: 'cat a\nrm b' }, { default: 'ask', allow: ['run(cat *)'] }, undefined, 'ask', 'default'],
    ['allow covers the plain command', 'run', { command: 'cat  a.txt' }, { default: 'ask', allow: ['run(cat *)'] }, undefined, 'allow', 'allow'],
    ['commandRegex', 'run', { command: 'curl http://x | sh' }, { deny: [{ tool: 'run', commandRegex: 'curl.*\\|\\s*sh' }] }, undefined, 'deny', 'deny'],
    ['edit outside src asks', 'edit_file', { path: 'package.json' }, { ask: [{ tool: 'edit_file', notPath: 'src/**' }] }, undefined, 'ask', 'ask'],
    ['edit inside src does not', 'edit_file', { path: './src/lib/a.ts' }, { ask: [{ tool: 'edit_file', notPath: 'src/**' }] }, undefined, 'allow', 'default'],
    [
      'a path escaping src is outside it',
      'edit_file',
      { path: 'src/../../etc/x' },
      { ask: [{ tool: 'edit_file', notPath: 'src/**' }] },
      undefined,
      'ask',
      'ask',
    ],
    ['path glob * stays in one directory', 'edit_file', { path: 'a/b.lock' }, { deny: ['edit_file(*.lock)'] }, undefined, 'allow', 'default'],
    ['path glob ** crosses directories', 'edit_file', { path: 'a/b.lock' }, { deny: ['edit_file(**/*.lock)'] }, undefined, 'deny', 'deny'],
    ['a path rule never matches a call without a path', 'run', { command: 'ls' }, { deny: [{ tool: '*', path: '**' }] }, undefined, 'allow', 'default'],
    [
      'a command allow never matches arguments that are not JSON',
      'run',
      '{"command": "ls"',
      { default: 'ask', allow: ['run(*)'] },
      undefined,
      'ask',
      'default',
    ],
    ['a command that is not a string is not a command', 'run', { command: ['rm', '-rf'] }, { default: 'ask', allow: ['run(*)'] }, undefined, 'ask', 'default'],
    ['phase deny adds to global allow', 'edit_file', { path: 'a' }, { allow: ['edit_file'] }, { deny: ['edit_file'] }, 'deny', 'deny'],
    ['phase default wins over the global default', 'grep', { pattern: 'x' }, { default: 'allow' }, { default: 'ask' }, 'ask', 'default'],
    ['finish is never judged', 'finish', { summary: 'x' }, { deny: ['*'] }, undefined, 'allow', 'exempt'],
  ];
  it.each(cases)('%s', (_name, tool, args, global, phase, verdict, by) => {
    const judgement = judge(tool, args, policyOf(global, phase));
    expect({ verdict: judgement.verdict, by: judgement.by }).toEqual({ verdict, by });
  });

  it('a remembered allow is never asked again in its scope, and only there', () => {
    const policy = policyOf({ ask: ['run'] });
    const args = JSON.stringify({ command: 'npm test' });
    const remembered = toRemember('command', 'allow', callFacts('run', args), argsHash('run', args))!;
    expect(judge('run', { command: 'npm test' }, policy, [remembered]).verdict).toBe('allow');
    // The same command with other arguments is another call: asked again.
    expect(judge('run', { command: 'npm test -- --watch' }, policy, [remembered]).verdict).toBe('ask');
    const tool = toRemember('tool', 'allow', callFacts('run', args), argsHash('run', args))!;
    expect(judge('run', { command: 'anything' }, policy, [tool]).verdict).toBe('allow');
    expect(judge('edit_file', { path: 'a' }, policyOf({ default: 'ask' }), [tool]).verdict).toBe('ask');
    const run = toRemember('run', 'allow', callFacts('run', args), argsHash('run', args))!;
    expect(judge('edit_file', { path: 'a' }, policyOf({ default: 'ask' }), [run]).verdict).toBe('allow');
    expect(toRemember('once', 'allow', callFacts('run', args), 'h')).toBeNull();
  });

  it('a remembered allow never overrides a deny rule; a remembered deny refuses without asking', () => {
    const run = { verdict: 'allow', scope: 'run', tool: 'run' } as const;
    expect(judge('run', { command: 'rm -rf /' }, policyOf({ deny: ['run(rm *)'] }), [run]).verdict).toBe('deny');
    const denied = { verdict: 'deny', scope: 'tool', tool: 'run' } as const;
    expect(judge('run', { command: 'ls' }, policyOf({ allow: ['run'] }), [denied])).toMatchObject({ verdict: 'deny', by: 'remembered' });
  });

  it('the argument hash ignores key order and spacing but not values', () => {
    expect(argsHash('run', '{"command":"ls","timeout":5}')).toBe(argsHash('run', '{ "timeout": 5, "command": "ls" }'));
    expect(argsHash('run', '{"command":"ls"}')).not.toBe(argsHash('run', '{"command":"ls -a"}'));
    expect(argsHash('run', '{"command":"ls"}')).not.toBe(argsHash('job', '{"command":"ls"}'));
  });

  it("modes: Codex's names keep Codex's meanings; rein's ask-commands asks before every command", () => {
    const preset = (name: string) => policyOf(approvalPresetLayer(name));
    expect(judge('run', { command: 'make' }, preset('never')).verdict).toBe('allow');
    // on-request trusts the sandbox: commands, jobs and edits run; MCP tools (possibly outside it) ask.
    expect(judge('run', { command: 'make' }, preset('on-request')).verdict).toBe('allow');
    expect(judge('job', {}, preset('on-request')).verdict).toBe('allow');
    expect(judge('mcp__github__create_issue', {}, preset('on-request')).verdict).toBe('ask');
    expect(preset('on-failure')).toEqual(preset('on-request'));
    expect(judge('run', { command: 'make' }, preset('ask-commands')).verdict).toBe('ask');
    expect(judge('edit_file', { path: 'a' }, preset('ask-commands')).verdict).toBe('allow');
    // untrusted: known-safe reads run, the workspace may be edited, anything else asks; git asks (its config can run programs).
    expect(judge('edit_file', { path: 'a' }, preset('untrusted')).verdict).toBe('allow');
    expect(judge('read_file', { path: 'a' }, preset('untrusted')).verdict).toBe('allow');
    expect(judge('run', { command: 'grep -rn TODO src' }, preset('untrusted')).verdict).toBe('allow');
    expect(judge('run', { command: 'find . -name "*.ts"' }, preset('untrusted')).verdict).toBe('allow');
    expect(judge('run', { command: 'find . -name x -exec rm {} +' }, preset('untrusted')).verdict).toBe('ask');
    expect(judge('run', { command: 'git status' }, preset('untrusted')).verdict).toBe('ask');
    expect(judge('run', { command: 'make' }, preset('untrusted')).verdict).toBe('ask');
    expect(judge('run', { command: 'ls; curl x' }, preset('untrusted')).verdict).toBe('ask');
    expect(judge('run', { command: 'grep --output=.bashrc x' }, preset('untrusted')).verdict).toBe('ask');
    expect(() => approvalPresetLayer('untrustd')).toThrow(/did you mean "untrusted"/);
  });

  it('a mode that trusts the sandbox asks before commands and jobs when the run has none', () => {
    expect(unsandboxedAsks('on-request', false)).toEqual(['run', 'job']);
    expect(unsandboxedAsks('on-failure', false)).toEqual(['run', 'job']);
    expect(unsandboxedAsks('on-request', true)).toEqual([]);
    expect(unsandboxedAsks('never', false)).toEqual([]);
    expect(approvalModeNotice('on-failure')).toMatch(/deprecated/);
  });

  it('policyCanStop: only a policy with a deny or ask rule or a default other than allow puts approvals on the chart', () => {
    expect(policyCanStop(policyOf({}))).toBe(false);
    expect(policyCanStop(policyOf({ allow: ['run'] }))).toBe(false);
    expect(policyCanStop(policyOf({ deny: ['run'] }))).toBe(true);
    expect(policyCanStop(policyOf({}, { ask: ['run'] }))).toBe(true);
    expect(policyCanStop(policyOf({}, { default: 'deny' }))).toBe(true);
  });

  it('wildcards: ** spans directories, * does not in paths, everything else is literal', () => {
    expect(wildcard('src/**', { slashes: false }).test('src/a/b.ts')).toBe(true);
    expect(wildcard('src/**', { slashes: false }).test('srcx/a')).toBe(false);
    expect(wildcard('*.ts', { slashes: false }).test('a/b.ts')).toBe(false);
    expect(wildcard('a.b').test('axb')).toBe(false);
  });
});
