import { UsageError } from '../../lib/errors.js';
import type { Io } from '../execute-run.js';

// Scaffold: replaced by the compare implementation (owned by the compare work in progress).
export async function compareCommand(_argv: string[], _io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  throw new UsageError('rein compare: not available in this build yet');
}
