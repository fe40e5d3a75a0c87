import { UsageError } from '../../lib/errors.js';
import type { Io } from '../execute-run.js';

// Scaffold: replaced by the eval implementation (owned by the eval work in progress).
export async function evalCommand(_argv: string[], _io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  throw new UsageError('rein eval: not available in this build yet');
}
