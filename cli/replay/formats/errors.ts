import { ReinError } from 'rein/lib';

/** Where a record came from: the file, its line (for JSONL), and what inside it. */
export interface LineSource {
  file: string;
  line?: number;
  detail?: string;
}

/** A record a format reader could not read: the message names the file and line. */
export class FormatError extends ReinError {
  constructor(
    readonly where: LineSource,
    why: string,
  ) {
    super(`${where.file}${where.line ? `:${where.line}` : ''}${where.detail ? ` (${where.detail})` : ''}: ${why}`);
  }
}
