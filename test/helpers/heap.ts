/**
 * Memory the JS heap still holds after a full collection: what a piece of code
 * keeps alive, without the garbage a lazy collector has not yet returned
 * (which RSS includes, and which varies with the machine's load).
 */

import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/**
 * Bytes in use after a full garbage collection: the heap plus external memory,
 * where Node keeps large decoded ASCII strings and Buffers.
 */
export function retainedHeapBytes(): number {
  collect();
  collect(); // a second pass takes what the first pass's finalizers released
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
