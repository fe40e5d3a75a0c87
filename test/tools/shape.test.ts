import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOutputCollector, headTail, keepPerSide } from '../../tools/shaping/shape.js';
import { retainedHeapBytes } from '../helpers/heap.js';

describe('headTail', () => {
  it('keeps the seed head, marker and tail', () => {
    const text = `${'a'.repeat(100)}${'b'.repeat(100)}`;
    expect(headTail(text, 100)).toBe(`${'a'.repeat(10)}\n...[180 chars omitted]...\n${'b'.repeat(10)}`);
  });

  it('returns text of exactly cap chars unchanged', () => {
    const text = 'x'.repeat(6000);
    expect(headTail(text, 6000)).toBe(text);
    expect(headTail(`${text}y`, 6000)).toMatch(/^x{2960}\n\.\.\.\[81 chars omitted\]\.\.\.\nx{2959}y$/);
  });

  it('keeps nothing (rather than everything, as Python text[-0:] would) below cap 82', () => {
    expect(headTail('z'.repeat(500), 80)).toBe('\n...[500 chars omitted]...\n');
  });
});

describe('createOutputCollector', () => {
  const chunked = (bytes: Uint8Array, cuts: number[]): Uint8Array[] => {
    const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
    const pieces: Uint8Array[] = [];
    let from = 0;
    for (const point of [...points, bytes.length]) {
      pieces.push(bytes.subarray(from, point));
      from = point;
    }
    return pieces;
  };

  it('equals headTail of the whole text for any text, chunking, cap and prefix', () => {
    fc.assert(
      fc.property(
        // size 'max': fast-check's default keeps strings to a few characters, which never fill the head.
        fc.string({ unit: 'binary', maxLength: 400, size: 'max' }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 0, max: 300 }),
        fc.string({ maxLength: 20, size: 'max' }),
        (text, cuts, cap, prefix) => {
          const collector = createOutputCollector(cap);
          for (const piece of chunked(new TextEncoder().encode(text), cuts)) collector.push(piece);
          expect(collector.finish(prefix)).toBe(headTail(prefix + text, cap));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('decodes invalid UTF-8 split anywhere exactly like a one-shot decode, without throwing', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300, size: 'max' }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 0, max: 200 }),
        (bytes, cuts, cap) => {
          const collector = createOutputCollector(cap);
          for (const piece of chunked(bytes, cuts)) collector.push(piece);
          expect(collector.finish()).toBe(headTail(new TextDecoder().decode(bytes), cap));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('exercises the rolling tail: the generated texts overflow the head in most runs', () => {
    let overflowing = 0;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400, size: 'max' }), fc.integer({ min: 0, max: 300 }), (text, cap) => {
        if (text.length > cap + keepPerSide(cap)) overflowing += 1;
      }),
      { numRuns: 500 },
    );
    expect(overflowing).toBeGreaterThan(150);
  });

  it('keeps a byte-order mark at the start, counts characters, and refuses input after finish', () => {
    const collector = createOutputCollector(100);
    collector.push(Buffer.from([0xef, 0xbb, 0xbf, 0x61]));
    collector.push(Buffer.from('é'));
    expect(collector.totalChars).toBe(3);
    expect(collector.finish()).toBe('\uFEFFaé');
    expect(collector.finish()).toBe('\uFEFFaé');
    expect(() => collector.push(Buffer.from('x'))).toThrow('output collector already finished');
  });

  it('holds O(cap) memory with a cap so small that nothing is kept at the ends', () => {
    const collector = createOutputCollector(50);
    const chunk = Buffer.alloc(1 << 20, 'x');
    const before = retainedHeapBytes();
    for (let i = 0; i < 256; i += 1) collector.push(chunk);
    // What the live collector holds: holding the 256 MB of text it was given would show here in full.
    expect(retainedHeapBytes() - before).toBeLessThan(16 * 1024 * 1024);
    expect(collector.finish()).toBe(`\n...[${256 * (1 << 20)} chars omitted]...\n`);
  }, 30_000);

  it('holds O(cap) memory for 512 MB of input and counts every omitted char', () => {
    const collector = createOutputCollector(6000);
    const chunk = Buffer.alloc(1 << 20, 'é'); // 2-byte chars: counting must be in chars, not bytes
    const before = retainedHeapBytes();
    for (let i = 0; i < 512; i += 1) collector.push(chunk);
    const grown = retainedHeapBytes() - before;
    const text = collector.finish('exit=0\n');
    const keep = keepPerSide(6000);
    expect(text).toHaveLength(2 * keep + `\n...[${7 + 256 * 1024 * 1024 - 2 * keep} chars omitted]...\n`.length);
    expect(text).toContain(`...[${7 + 256 * 1024 * 1024 - 2 * keep} chars omitted]...`);
    expect(text.startsWith('exit=0\néé')).toBe(true);
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  }, 30_000);
});
