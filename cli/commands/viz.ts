import { UsageError } from '../../lib/errors.js';
import type { Io } from '../execute-run.js';

// Scaffold: replaced by the viz implementation (owned by the viz work in progress).
export async function vizCommand(_argv: string[], _io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  throw new UsageError('rein viz: not available in this build yet');
}
