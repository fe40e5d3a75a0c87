import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { UsageError } from 'rein/lib/errors.js';
import { RULES_FILE_NAMES } from 'rein/lib/state/harness-files.js';
import { realKey } from 'rein/lib/state/state-records.js';
import { fingerprintRules } from 'rein/rules/trust/rules-fingerprint.js';
import { trustRulesFiles } from 'rein/rules/trust/rules-watch.js';
import { listTrustedRules, recordTrustedRules, revokeTrustedRules, trustedRulesPath } from 'rein/rules/trust/trusted-rules.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

export const TRUST_USAGE = `rein trust [<repo> | <rules file>] [--workspace DIR]   after reviewing it: let rein load this repository's rules file
rein trust --list                                     the rules files you trusted, with their hashes and where the record is
rein trust --revoke [<repo> | <rules file>]           forget them: they are untrusted again

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
  if (parsed.values.revoke) {
    const gone = revokeTrustedRules(realKey(target ?? '.'));
    io.stderr.write(gone.length > 0 ? `rein: no longer trusted: ${gone.join(', ')}\n` : `rein: nothing trusted under ${resolve(target ?? '.')}\n`);
    return EXIT.done;
  }
  return trustRepository(target ?? '.', stringFlag(parsed, 'workspace'), io);
}

/**
 * Records the rules file as trusted, with the hashes of the workspace modules it imports, and clears the marks of
 * rules files earlier runs wrote (also what `rein rules trust` does).
 */
export async function trustRepository(target: string, workspaceFlag: string | undefined, io: Io): Promise<number> {
  const { file, workspace } = rulesFileOf(target, workspaceFlag);
  const cleared = trustRulesFiles(workspace);
  if (!file) {
    io.stderr.write(
      cleared.length > 0 ? `rein: trusted ${cleared.join(', ')} in ${workspace}\n` : `rein: no rules file in ${workspace} (${RULES_FILE_NAMES.join(', ')})\n`,
    );
    return EXIT.done;
  }
  const fingerprint = await fingerprintRules(file, workspace);
  recordTrustedRules(file, fingerprint);
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

function rulesFileOf(target: string, workspaceFlag: string | undefined): { file: string | undefined; workspace: string } {
  const path = realKey(target);
  if (!existsSync(path)) throw new UsageError(`rein trust: not found: ${target}`);
  if (statSync(path).isDirectory()) {
    const name = RULES_FILE_NAMES.find((candidate) => existsSync(join(path, candidate)));
    return { file: name ? join(path, name) : undefined, workspace: workspaceFlag ? realKey(workspaceFlag) : path };
  }
  return { file: path, workspace: workspaceFlag ? realKey(workspaceFlag) : dirname(path) };
}

function listTrust(io: Io): number {
  const records = listTrustedRules();
  io.stderr.write(`rein: trusted rules files, recorded in ${trustedRulesPath()} (edit or delete entries there, or use --revoke):\n`);
  if (records.length === 0) io.stderr.write('  none\n');
  for (const record of records) {
    io.stdout.write(`${record.file}\t${record.hash}\t${record.trustedAt}\n`);
    for (const [module, hash] of Object.entries(record.modules)) io.stdout.write(`  imports ${module}\t${hash}\n`);
  }
  return EXIT.done;
}
