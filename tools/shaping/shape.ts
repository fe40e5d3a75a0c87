/**
 * Observation shaping (seed component 2): keep the head and the tail of a long
 * text and replace the middle with a marker that says how much was dropped.
 *
 * "Chars" are UTF-16 code units, i.e. JavaScript `string.length`, in both
 * `headTail` and the streaming collector, so the two always agree.
 */

export { headTail, keepPerSide } from '../../lib/head-tail.js';
export { createOutputCollector } from '../../lib/output-collector.js';
