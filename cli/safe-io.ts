import { maskUrlSecrets, stripControl } from 'rein/lib';
import type { Io } from './execute-run.js';

/** A stream whose `write` is made safe for the terminal; `raw` writes rein's own control sequences (the status line's redraw). */
interface SafeStream {
  write(text: string): boolean;
  raw(text: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

/**
 * The CLI's output, made safe for the terminal in one place: every line any command prints to stdout or stderr goes
 * through `stripControl` (and `maskUrlSecrets`), whatever text from outside it holds (a server's stderr, an error body, a tool's output, a
 * file name, a model's words). Escape sequences that set titles, write the clipboard (OSC 52), clear the screen or
 * move the cursor over rein's own lines, C1 controls and bidi overrides never reach the terminal. Only the status
 * line's own redraw (`\r`, erase line) goes through `raw`.
 *
 * @example const code = await main(argv, terminalSafeIo({ stdout: process.stdout, stderr: process.stderr }));
 */
export function terminalSafeIo(io: Io): { stdout: SafeStream; stderr: SafeStream } {
  return { stdout: safeStream(io.stdout), stderr: safeStream(io.stderr) };
}

function safeStream(stream: { write(text: string): boolean; isTTY?: boolean; columns?: number }): SafeStream {
  if ('raw' in stream && typeof (stream as SafeStream).raw === 'function') return stream as SafeStream;
  return {
    write: (text) => stream.write(maskUrlSecrets(stripControl(text))),
    raw: (text) => stream.write(text),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}
