import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { RULES_FILE_NAMES, realKey, UsageError, userStateDir } from 'rein/lib';
import {
  clearUntrustedMarks,
  fingerprintRules,
  forgetRemembered,
  listRemembered,
  listTrustedHooks,
  listTrustedMcpConfigs,
  listTrustedRulesFiles,
  revokeHooks,
  revokeMcpConfigs,
  revokeRulesFiles,
  TRUST_KINDS,
  trustedRulesPath,
  trustMcpConfig,
  trustRulesFile,
} from 'rein/rules';
import { readProjectServers } from 'rein/run';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

const TRUST_USAGE = `rein trust [<repo> | <rules file>] [--workspace DIR]   after reviewing it: let rein load this repository's rules file
rein trust --list                                     what you trusted: rules files (with their hashes), repositories' hooks, remembered approvals
rein trust --revoke [<repo> | <rules file>]           forget all of it for that repository or file: it is untrusted again

A repository's own rules file (rein.config.json|yaml|yml|ts|mts|mjs|js) is untrusted until you run this: a code file
is never run, and a data file may only narrow the rules (sandbox, network, readable paths, environment, approvals,
hooks, MCP servers, verification, budgets and rein's texts are refused). The record, in your state dir
(${'$'}XDG_STATE_HOME/rein or ~/.local/state/rein), holds a hash of the file and of every module inside the workspace it
imports (its own helpers, packages in the repository's node_modules): when one changes, the file is untrusted again.
A rules file you name with --config is your own choice and needs no trust. <repo> defaults to the current directory.`;

const TRUST_FLAGS: FlagSpec = {
  list: { type: 'boolean' },
  revoke: { type: 'boolean' },
  workspace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export async function trustCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein trust', argv, TRUST_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(`${TRUST_USAGE}\n`);
    return EXIT.done;
  }
  const [target, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`rein trust: unexpected argument "${extra[0]}"`);
  if (parsed.values.list) return listTrust(io);
  if (parsed.values.revoke) return revokeTrust(realKey(target ?? '.'), io);
  return trustRepository(target ?? '.', stringFlag(parsed, 'workspace'), io);
}

/**
 * Records the rules file as trusted, with the hashes of the workspace modules it imports, and clears the marks of
 * rules files earlier runs wrote (also what `rein rules trust` does).
 */
export async function trustRepository(target: string, workspaceFlag: string | undefined, io: Io): Promise<number> {
  const { file, workspace } = rulesFileOf(target, workspaceFlag);
  const cleared = clearUntrustedMarks(workspace);
  trustProjectServers(workspace, io);
  if (!file) {
    io.stderr.write(
      cleared.length > 0 ? `rein: trusted ${cleared.join(', ')} in ${workspace}\n` : `rein: no rules file in ${workspace} (${RULES_FILE_NAMES.join(', ')})\n`,
    );
    return EXIT.done;
  }
  const fingerprint = await fingerprintRules(file, workspace);
  trustRulesFile(file, fingerprint);
  const modules = Object.keys(fingerprint.modules).map((module) => `  ${relative(workspace, module)}`);
  io.stderr.write(
    [
      `rein: trusted ${relative(workspace, file) || file} in ${workspace} (sha256 ${fingerprint.hash.slice(0, 12)}…)${modules.length > 0 ? ', with the modules it imports:' : ''}`,
      ...modules,
      `rein: recorded in ${trustedRulesPath()}; if the file or one of these modules changes, it is untrusted again`,
      '',
    ].join('\n'),
  );
  return EXIT.done;
}

/** Records the workspace's `.mcp.json` as it is, after saying what it starts (used only with mcp.projectConfig on). */
function trustProjectServers(workspace: string, io: Io): void {
  const hash = trustMcpConfig(workspace);
  if (hash === null) return;
  const { summary, problems } = readProjectServers(workspace);
  io.stderr.write(
    [
      `rein: trusted .mcp.json in ${workspace} (sha256 ${hash.slice(0, 12)}…); with mcp.projectConfig on, runs start:`,
      ...(summary.length > 0 ? summary.map((line) => `  ${line}`) : ['  (no server rein can start)']),
      ...problems.map((problem) => `  skipped ${problem}`),
      'rein: if the file changes, it is untrusted again',
      '',
    ].join('\n'),
  );
}

function rulesFileOf(target: string, workspaceFlag: string | undefined): { file: string | undefined; workspace: string } {
  const path = realKey(target);
  if (!existsSync(path)) throw new UsageError(`rein trust: not found: ${target}`);
  if (statSync(path).isDirectory()) {
    const name = RULES_FILE_NAMES.find((candidate) => existsSync(join(path, candidate)));
    return { file: name ? join(path, name) : undefined, workspace: workspaceFlag ? realKey(workspaceFlag) : path };
  }
  return { file: path, workspace: workspaceFlag ? realKey(workspaceFlag) : dirname(path) };
}

/** Forgets every trust decision about the repository or rules file (and what lies under it). */
function revokeTrust(path: string, io: Io): number {
  const files = revokeRulesFiles(path);
  const hooks = revokeHooks(path);
  const mcpConfigs = revokeMcpConfigs(path);
  const decisions = forgetRemembered(path);
  const gone = [
    ...files,
    ...hooks.map((workspace) => `the hooks of ${workspace}`),
    ...mcpConfigs.map((workspace) => `the .mcp.json of ${workspace}`),
    ...(decisions > 0 ? [`${decisions} remembered approval${decisions === 1 ? '' : 's'}`] : []),
  ];
  io.stderr.write(gone.length > 0 ? `rein: no longer trusted: ${gone.join(', ')}\n` : `rein: nothing trusted under ${resolve(path)}\n`);
  return EXIT.done;
}

function listTrust(io: Io): number {
  const records = listTrustedRulesFiles();
  const folders = Object.values(TRUST_KINDS).join(', ');
  io.stderr.write(`rein: what you trusted, recorded in ${userStateDir()} (${folders}; edit or delete entries there, or use --revoke)\n`);
  io.stderr.write(`rein: rules files (${trustedRulesPath()}):\n`);
  if (records.length === 0) io.stderr.write('  none\n');
  for (const record of records) {
    io.stdout.write(`${record.file}\t${record.hash}\t${record.trustedAt}\n`);
    for (const [module, hash] of Object.entries(record.modules)) io.stdout.write(`  imports ${module}\t${hash}\n`);
  }
  for (const { workspace, trustedAt } of listTrustedHooks()) io.stdout.write(`hooks of ${workspace}\t${trustedAt}\n`);
  for (const { workspace, hash, trustedAt } of listTrustedMcpConfigs()) io.stdout.write(`.mcp.json of ${workspace}\t${hash}\t${trustedAt}\n`);
  for (const decision of listRemembered())
    io.stdout.write(
      `remembered for ${decision.repository}: ${decision.verdict} ${decision.tool}${decision.command ? ` ${decision.command}` : ''}\t${decision.rememberedAt}\n`,
    );
  return EXIT.done;
}
