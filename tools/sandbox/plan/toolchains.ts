import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from './find-on-path.js';
import { isWithin } from './hidden-paths.js';

/** Variables that point at a toolchain (when set, the folder is shown), and folders that come with another. */
const TOOLCHAIN_VARIABLES = [
  'PYENV_ROOT',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'GOROOT',
  'JAVA_HOME',
  'VOLTA_HOME',
  'BUN_INSTALL',
  'PNPM_HOME',
  'DENO_INSTALL',
  'RBENV_ROOT',
  'GEM_HOME',
  'ASDF_DATA_DIR',
  'MISE_DATA_DIR',
  'SDKMAN_CANDIDATES_DIR',
  'JULIAUP_DEPOT_PATH',
];
const COMPANIONS: Readonly<Record<string, readonly string[]>> = { '.cargo': ['.rustup'], '.local/bin': ['.local/lib'] };

/** Folders below the home directory that hold much more than one toolchain: a PATH entry inside them is shown on its own. */
const TOO_BROAD = ['', '.local', '.local/share', '.config', '.cache', 'go'];

interface ToolchainInput {
  root: string;
  home: string;
  /** The PATH commands get. */
  pathValue: string;
  testCmd?: string;
  env?: NodeJS.ProcessEnv;
  /** Folders commands see anyway (the system): nothing below them is listed. */
  visible: readonly string[];
  /**
   * rein's own install (its code and its packages): never a toolchain of the agent's commands, though a PATH
   * entry links into it (`node_modules/.bin/rein` → the CLI package).
   */
  ownInstall?: readonly string[];
}

/**
 * The folders outside the system and the workspace that the commands'
 * toolchains live in, so a test command that uses `~/.pyenv`, nvm, rustup or
 * a Homebrew prefix still works in a sandbox that hides the rest of the disk.
 * Found from each PATH entry, from the programs the test command names
 * (symlinks and `#!` interpreters followed, so a workspace virtualenv pulls in
 * the Python it was made from), from a workspace `pyvenv.cfg`, and from the
 * usual variables (PYENV_ROOT, CARGO_HOME, VIRTUAL_ENV…). A folder is widened
 * to its installation (`~/.pyenv/shims` → `~/.pyenv`), never to the home
 * directory or a folder that holds the workspace.
 *
 * @example detectToolchains({ root: '/w/repo', home: '/home/me', pathValue: '/home/me/.pyenv/shims:/usr/bin', visible: ['/usr'] }) // ['/home/me/.pyenv']
 */
export function detectToolchains(input: ToolchainInput): string[] {
  const found = new Set<string>();
  const add = (candidate: string | null) => {
    if (candidate === null) return;
    const folder = installationOf(candidate, input);
    if (folder === null || found.has(folder)) return;
    found.add(folder);
    for (const companion of COMPANIONS[path.relative(input.home, folder)] ?? []) add(existing(path.join(input.home, companion)));
  };
  for (const dir of input.pathValue.split(path.delimiter)) {
    const real = path.isAbsolute(dir) ? realOrNull(dir) : null;
    // A system folder is shown anyway, and its links point into the system (or are alternatives the test command names).
    if (real === null || input.visible.some((visible) => isWithin(visible, real))) continue;
    add(real);
    for (const target of linkTargetsIn(real)) add(target);
  }
  for (const program of programsOf(input.testCmd ?? '', input)) {
    add(program);
    add(interpreterOf(program, input.pathValue));
  }
  // A repository's pyvenv.cfg is the repository's word: only a folder holding a real Python program counts, and the
  // installation around that program is what is shown (not whatever folder `home =` names).
  for (const cfg of virtualenvConfigs(input.root)) add(pythonIn(readVenvHome(cfg)));
  for (const name of TOOLCHAIN_VARIABLES) {
    const value = input.env?.[name];
    if (value && path.isAbsolute(value)) add(existing(value));
  }
  // A folder inside another that is shown anyway (~/.pyenv/libexec inside ~/.pyenv) needs no mount of its own.
  return [...found].filter((dir) => ![...found].some((other) => other !== dir && isWithin(other, dir))).sort();
}

/** The installation folder a program or folder belongs to, or null when commands see it anyway. */
function installationOf(candidate: string, input: ToolchainInput): string | null {
  const real = realOrNull(candidate);
  if (real === null) return null;
  if ([...input.visible, input.root].some((dir) => isWithin(dir, real))) return null;
  if ((input.ownInstall ?? []).some((dir) => isWithin(dir, real))) return null;
  const dir = fs.statSync(real).isDirectory() ? real : path.dirname(real);
  const widened = widen(dir, input.home);
  const holdsSomethingPrivate = (folder: string) => isWithin(folder, input.home) || isWithin(folder, input.root) || folder === path.parse(folder).root;
  if (!holdsSomethingPrivate(widened)) return widened;
  return holdsSomethingPrivate(dir) ? null : dir;
}

/**
 * `<prefix>/bin/…` or `<prefix>/shims/…` → `<prefix>`, unless the prefix is a catch-all folder of the home directory;
 * anything in a `node_modules` folder → that folder (its `.bin` links point at its packages: one mount, not one per package).
 */
function widen(dir: string, home: string): string {
  const parts = dir.split(path.sep);
  const modules = parts.lastIndexOf('node_modules');
  const modulesFolder = parts.slice(0, modules + 1).join(path.sep);
  if (modules > 0 && !isWithin(modulesFolder, home)) return modulesFolder;
  let at = parts.length - 1;
  while (at > 0 && !['bin', 'shims', 'sbin'].includes(parts[at]!)) at -= 1;
  if (at <= 0) return dir;
  const prefix = parts.slice(0, at).join(path.sep) || path.sep;
  const rel = isWithin(home, prefix) ? path.relative(home, prefix) : null;
  return rel !== null && TOO_BROAD.includes(rel) ? parts.slice(0, at + 1).join(path.sep) : prefix;
}

/** Where the symlinks in a PATH folder point (pipx, uv tool and ~/.local/bin entries point into other installations). */
function linkTargetsIn(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isSymbolicLink()).map((entry) => path.join(dir, entry.name));
}

/** Programs named by a shell command: the first word of each simple command (looked up on PATH) and every word that is a path. */
function programsOf(command: string, input: ToolchainInput): string[] {
  const programs: string[] = [];
  let first = true;
  for (const raw of command.split(/\s+|(?=[;&|()])|(?<=[;&|()])/)) {
    const word = raw.replace(/^['"]|['"]$/g, '');
    if (/^[;&|()]+$/.test(word)) {
      first = true;
      continue;
    }
    if (word === '' || (first && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) continue;
    const expanded = word.replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, input.home);
    if (expanded.includes('/')) programs.push(path.resolve(input.root, expanded));
    else if (first) {
      const found = findOnPath(expanded, input.pathValue);
      if (found) programs.push(found);
    }
    first = false;
  }
  return programs;
}

/** The interpreter of a `#!` script (`#!/usr/bin/env python3` looked up on PATH). */
function interpreterOf(program: string, pathValue: string): string | null {
  let head: string;
  try {
    const fd = fs.openSync(program, 'r');
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, fs.readSync(fd, buffer, 0, 256, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  if (!head.startsWith('#!')) return null;
  const [interpreter, argument] = head.slice(2).split('\n')[0]!.trim().split(/\s+/);
  if (!interpreter) return null;
  if (path.basename(interpreter) === 'env' && argument) return findOnPath(argument, pathValue);
  return interpreter;
}

/** `pyvenv.cfg` files of virtualenvs in the workspace (`.venv/`, `venv/`, `.tox/py311/`). */
function virtualenvConfigs(root: string): string[] {
  const configs: string[] = [];
  for (const first of safeReaddir(root)) {
    const dir = path.join(root, first);
    if (fs.existsSync(path.join(dir, 'pyvenv.cfg'))) configs.push(path.join(dir, 'pyvenv.cfg'));
    else if (first === '.tox' || first === '.nox') {
      for (const env of safeReaddir(dir)) configs.push(path.join(dir, env, 'pyvenv.cfg'));
    }
  }
  return configs;
}

/** The Python program in folder `dir` (a virtualenv's `home`): an executable regular file, after links; else null. */
function pythonIn(dir: string): string | null {
  if (!path.isAbsolute(dir)) return null;
  for (const name of ['python3', 'python']) {
    const real = realOrNull(path.join(dir, name));
    if (real === null || !/^python[\d.]*$/.test(path.basename(real))) continue;
    try {
      if (!fs.statSync(real).isFile()) continue;
      fs.accessSync(real, fs.constants.X_OK);
      return real;
    } catch {}
  }
  return null;
}

function readVenvHome(cfg: string): string {
  try {
    return /^home\s*=\s*(.+)$/m.exec(fs.readFileSync(cfg, 'utf8'))?.[1]?.trim() ?? '';
  } catch {
    return '';
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function existing(candidate: string): string | null {
  return candidate !== '' && path.isAbsolute(candidate) && fs.existsSync(candidate) ? candidate : null;
}

function realOrNull(candidate: string): string | null {
  try {
    return fs.realpathSync(candidate);
  } catch {
    return null;
  }
}
