import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * rein's own state outside every repository: `$XDG_STATE_HOME/rein`, else `~/.local/state/rein`, created private
 * (0700). The sandbox never shows it (the home directory is a private tmpfs there), and it is not in the workspace,
 * so nothing an agent writes can change what is recorded in it.
 *
 * @example userStateDir() // '/home/me/.local/state/rein'
 */
export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(env.HOME || os.homedir(), '.local', 'state');
  const dir = path.join(base, 'rein');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return dir;
}
