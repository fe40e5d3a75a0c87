import { runForMemory } from './memory-run.js';

// `node --expose-gc dist/bench/memory-child.js <steps> <now|before>`: one run in a fresh process, so its peak RSS is
// the run's own; prints one JSON line.
const figures = await runForMemory(Number(process.argv[2]), { everything: process.argv[3] === 'before' });
process.stdout.write(`${JSON.stringify(figures)}\n`);
