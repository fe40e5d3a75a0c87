import fs from 'node:fs';
import nodePath from 'node:path';
import { z } from 'zod';
import { shortHash } from '../lib/short-hash.js';
import { writeFileAtomic } from './edits/atomic-write.js';
import { checkSyntax, type SyntaxChecker } from './edits/syntax-check.js';
import { resolveWritableInWorkspace } from './permissions/path-guard.js';
import { type OpenedFile, openVerifiedDir, verifiedPath } from './permissions/verified-open.js';
import { openExistingFile, readWindow } from './read-file.js';
import { headTail } from './shaping/shape.js';
import type { Tool, ToolContext, ToolOutcome } from './types.js';

/** Echo of the edited region, as in the seed. */
const EDIT_ECHO_CHARS = 1_500;
/** Cap on the syntax error shown for a rejected edit, as in the seed. */
const SYNTAX_ERROR_CHARS = 800;

const parameters = z
  .object({
    path: z.string().describe('File to edit, relative to the repository root. It must exist.'),
    old: z.string().describe('Exact text to replace, including whitespace; must occur exactly once in the file.'),
    new: z.string().describe('Replacement text.'),
  })
  .strict();

/**
 * `edit_file`: replace one exact occurrence of `old` with `new` (seed
 * component 3). An edit that breaks the syntax of a file that parsed before
 * is rejected and the file stays byte-identical; an accepted edit is written
 * atomically and echoed back from three lines above it.
 *
 * @example await editFileTool.execute({ path: 'stats.py', old: 'return total', new: 'return total / n' }, ctx)
 */
export const editFileTool: Tool<typeof parameters> = {
  name: 'edit_file',
  description: 'Replace one exact occurrence of `old` with `new`. Edits that break the syntax of Python, JS/TS, JSON or YAML files are rejected.',
  parameters,
  async execute({ path, old, new: replacement }, ctx) {
    // Stryker disable next-line ArrayDeclaration: a fallback naming a file that does not exist protects nothing, as [] does
    const file = openExistingFile(ctx.root, path, { forWriting: true, protectedFiles: ctx.protectedFiles ?? [], hiding: ctx.policy });
    let source: string | null;
    try {
      source = decodeText(fs.readFileSync(file.fd));
    } finally {
      file.close();
    }
    if (source === null) return rejected(path, `Edit rejected: ${path} is not a UTF-8 text file; change it with a command instead.`);
    const count = countOccurrences(source, old);
    if (count !== 1) return rejected(path, `Edit rejected: \`old\` must match exactly once, found ${count} matches.`);
    const at = source.indexOf(old);
    // Slicing, not String.replace: `new` may contain `$&` and friends.
    const candidate = source.slice(0, at) + replacement + source.slice(at + old.length);
    const judgement = await judgeSyntax(ctx.syntax ?? { check: checkSyntax, close: () => {} }, path, source, candidate);
    if ('error' in judgement) {
      return rejected(path, `Edit rejected, file unchanged. Syntax error:\n${headTail(judgement.error, SYNTAX_ERROR_CHARS)}`);
    }
    replaceVerified(ctx, file, path, candidate);
    return applied(path, lineOf(source, at), ctx, judgement.note, { before: shortHash(source), after: shortHash(candidate) });
  },
  // A resumed run asks this for an edit its killed predecessor had started: `old` gone and
  // `new` present means the write happened, so it is reported, not attempted again.
  // A deletion (empty `new`) leaves nothing to find, so it is never reported as done. (`new` containing `old`,
  // or equal to it, needs no check of its own: `old` would still be in the file.)
  async recover({ path, old, new: replacement }, ctx) {
    if (replacement === '') return null;
    const file = openExistingFile(ctx.root, path, { hiding: ctx.policy });
    let source: string | null;
    try {
      source = decodeText(fs.readFileSync(file.fd));
    } finally {
      file.close();
    }
    if (source === null || countOccurrences(source, old) !== 0 || countOccurrences(source, replacement) !== 1) return null;
    const before = source.slice(0, source.indexOf(replacement)) + old + source.slice(source.indexOf(replacement) + replacement.length);
    return applied(path, lineOf(source, source.indexOf(replacement)), ctx, undefined, { before: shortHash(before), after: shortHash(source) });
  },
};

/** Hashes of the file's content before and after the edit: the stall detector tells a new version from a return to an old one. */
type Versions = { before: string; after: string };

/**
 * Writes the edited text over the file that was read: the temporary file and the rename are made in the file's
 * directory, opened no-follow and checked to be inside the workspace, and checked again just before the rename, so a
 * directory or link swapped in meanwhile sends nothing, not even a temporary file, outside.
 */
function replaceVerified(ctx: ToolContext, file: OpenedFile, shown: string, text: string): void {
  const dir = openVerifiedDir(ctx.root, nodePath.dirname(file.real), shown, ctx.policy);
  // Where the write lands, judged again on the directory as it is now: never rein's own files.
  const check = () => {
    const target = nodePath.join(verifiedPath(ctx.root, dir.fd, shown, ctx.policy, true), nodePath.basename(file.real));
    // Stryker disable next-line ArrayDeclaration: a fallback naming a file that does not exist protects nothing, as [] does
    resolveWritableInWorkspace(ctx.root, target, ctx.protectedFiles ?? [], ctx.policy);
  };
  try {
    check();
    writeFileAtomic(file.real, text, { dir: { fd: dir.fd, check }, original: file.stat });
  } finally {
    dir.close();
  }
}

async function applied(path: string, line: number, ctx: ToolContext, note: string | undefined, versions: Versions): Promise<ToolOutcome> {
  const file = openExistingFile(ctx.root, path, { hiding: ctx.policy });
  let window: string;
  try {
    window = await readWindow(file, path, Math.max(1, line - 3), ctx.limits.viewLines);
  } finally {
    file.close();
  }
  const shownNote = note === undefined ? '' : `[${note}]\n`;
  return { content: `Edit applied.\n${shownNote}${window.slice(0, EDIT_ECHO_CHARS)}`, ok: true, effect: { kind: 'edit', path, applied: true, ...versions } };
}

/** Non-overlapping occurrences, as Python's `str.count` (an empty needle matches length + 1 times). */
function countOccurrences(haystack: string, needle: string): number {
  if (needle === '') return haystack.length + 1;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/**
 * Rejects only edits that break a file which parsed before; if it was already
 * broken (a merge conflict, a dialect our parser lacks, a second error still
 * to fix), the edit goes through with a note, so files can be repaired step by step.
 */
async function judgeSyntax(syntax: SyntaxChecker, name: string, before: string, after: string): Promise<{ error: string } | { note?: string }> {
  const verdict = await syntax.check(name, after);
  if (verdict.kind === 'skipped') return { note: `syntax not checked: ${verdict.reason}` };
  if (verdict.kind !== 'invalid') return {};
  const previous = await syntax.check(name, before);
  if (previous.kind !== 'invalid') return { error: verdict.message };
  return { note: `the file still has a syntax error, as it had before this edit:\n${headTail(verdict.message, SYNTAX_ERROR_CHARS)}` };
}

/** Strict UTF-8 with the BOM kept, so writing back changes nothing but the edit. */
function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

function rejected(path: string, content: string): ToolOutcome {
  return { content, ok: false, effect: { kind: 'edit', path, applied: false } };
}
