/**
 * The messages between the harness and tools/sandbox/supervisor/supervisor.sh, as types. Requests go to the supervisor's stdin as
 * NUL-terminated fields; reports come back on fd 3, one line each. A report that is not one of these is a broken
 * supervisor, never something to skip.
 */

/** What the harness asks the supervisor to do. */
export type SupervisorRequest =
  | { type: 'run'; id: string; nonce: string; command: string }
  | { type: 'job'; id: string; log: string; command: string }
  | { type: 'stop'; pgid: number }
  | { type: 'quit' };

/** What the supervisor reports. */
export type SupervisorReport =
  | { type: 'ready'; pid: number }
  | { type: 'started'; id: string; pgid: number }
  | { type: 'commandEnded'; id: string; status: number }
  | { type: 'jobEnded'; id: string; status: number }
  | { type: 'problem'; text: string };

class SupervisorProtocolError extends Error {
  override name = 'SupervisorProtocolError';
}

/** The request's fields, each ended by a NUL; a field that holds a NUL cannot be sent. */
export function encodeRequest(request: SupervisorRequest): string {
  const fields = requestFields(request);
  if (fields.some((field) => field.includes('\0'))) throw new SupervisorProtocolError('a request field contains a NUL byte');
  return fields.map((field) => `${field}\0`).join('');
}

function requestFields(request: SupervisorRequest): string[] {
  switch (request.type) {
    case 'run':
      return ['run', request.id, request.nonce, request.command];
    case 'job':
      return ['job', request.id, request.log, request.command];
    case 'stop':
      return ['stop', String(request.pgid)];
    case 'quit':
      return [request.type];
  }
}

const ID = /^[\w-]+$/;
/** Longer than any report: a line this long without its newline is not one. */
const MAX_REPORT_CHARS = 4_096;
const NUMBER = /^\d+$/;

/**
 * One report line (without its newline) as a typed report; anything else throws `SupervisorProtocolError`.
 *
 * @example parseReport('E c12 0') // { type: 'commandEnded', id: 'c12', status: 0 }
 */
export function parseReport(line: string): SupervisorReport {
  const [code, first = '', second = '', ...rest] = line.split(' ');
  if (code === 'P') return { type: 'problem', text: line.slice(2) };
  if (rest.length > 0) throw unknownReport(line);
  if (code === 'R' && NUMBER.test(first) && second === '') return { type: 'ready', pid: Number(first) };
  if (!ID.test(first) || !NUMBER.test(second)) throw unknownReport(line);
  if (code === 'S') return { type: 'started', id: first, pgid: Number(second) };
  if (code === 'E') return { type: 'commandEnded', id: first, status: Number(second) };
  if (code === 'X') return { type: 'jobEnded', id: first, status: Number(second) };
  throw unknownReport(line);
}

function unknownReport(line: string): SupervisorProtocolError {
  return new SupervisorProtocolError(`the supervisor sent a report rein does not know: ${JSON.stringify(line.slice(0, 200))}`);
}

/**
 * Splits the report stream into lines, holding a partial line until its newline comes. A line longer than any
 * report could be is an error too.
 */
export function createReportReader(onReport: (report: SupervisorReport) => void, onError: (error: SupervisorProtocolError) => void) {
  let buffer = '';
  let broken = false;
  return (chunk: Buffer | string) => {
    if (broken) return;
    buffer += chunk.toString();
    try {
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        onReport(parseReport(line));
      }
      if (buffer.length > MAX_REPORT_CHARS) throw unknownReport(buffer);
    } catch (error) {
      broken = true;
      onError(error instanceof SupervisorProtocolError ? error : new SupervisorProtocolError(String(error)));
    }
  };
}
