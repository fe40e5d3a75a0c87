/**
 * A bounded collector for streamed command output (seed component 2): what
 * `headTail` would keep of the whole stream, in O(cap) memory.
 */

import { headTail, joinWithMarker, keepPerSide } from './head-tail.js';

/** Accepts output in chunks of any total size while holding O(cap) memory. */
export interface OutputCollector {
  /** Adds raw bytes; invalid UTF-8 becomes U+FFFD, nothing throws. */
  push(chunk: Buffer | Uint8Array): void;
  /** Characters seen so far (after decoding). */
  readonly totalChars: number;
  /**
   * Ends the stream and returns what `headTail(prefix + fullText, cap)` would
   * return, without ever having held the full text.
   */
  finish(prefix?: string): string;
}

/**
 * A bounded collector for command output. It keeps the first `cap` chars and
 * a rolling window of the last `keepPerSide(cap)` chars, and counts the rest.
 * Decoding is streaming UTF-8 with replacement, so a multi-byte character
 * split across chunks decodes exactly as it would in one piece and the
 * omitted count is exact.
 *
 * @example
 * const out = createOutputCollector(6000);
 * child.stdout.on('data', (chunk) => out.push(chunk));
 * const text = out.finish('exit=0\n');
 */
export function createOutputCollector(cap: number): OutputCollector {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  const headLimit = Math.max(cap, 0);
  const tailLimit = keepPerSide(cap);
  let head = '';
  let tail = '';
  let total = 0;
  let finished = false;

  const accept = (text: string): void => {
    total += text.length;
    // The head fills first (`room` is never negative); what does not fit rolls through the tail window.
    const room = headLimit - head.length;
    head += text.slice(0, room);
    const rest = text.slice(room);
    if (tailLimit === 0) return;
    tail = (tail + rest).slice(-tailLimit);
  };

  return {
    push(chunk) {
      if (finished) throw new Error('output collector already finished');
      accept(decoder.decode(chunk, { stream: true }));
    },
    get totalChars() {
      return total;
    },
    finish(prefix = '') {
      // A second call flushes nothing more: the decoder is already empty.
      accept(decoder.decode());
      finished = true;
      // Everything is still held when the tail window never had to roll.
      // Stryker disable next-line EqualityOperator: at equality the window holds exactly the last keepPerSide(cap) chars, so both ways give the same text
      if (total <= headLimit + tailLimit) return headTail(prefix + head + tail, cap);
      // Here the tail window is full: exactly keepPerSide(cap) chars, the same `keep` headTail uses.
      const keep = tailLimit;
      return joinWithMarker((prefix + head).slice(0, keep), prefix.length + total - 2 * keep, tail);
    },
  };
}
