import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemoryFigures } from './memory-run.js';

/** Peak RSS and heap of runs of each length, now and as rein held the record before, each run in its own process. */
interface MemoryComparison {
  steps: number;
  now: MemoryFigures;
  before: MemoryFigures;
}

const child = fileURLToPath(new URL('./memory-child.js', import.meta.url));

function measureInChild(steps: number, mode: 'now' | 'before'): Promise<MemoryFigures> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', child, String(steps), mode], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`memory run (${steps} steps, ${mode}) failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as MemoryFigures);
    });
  });
}

/**
 * Runs the harness for each length in a fresh process, once as it is and
 * once also holding every record message and tool result in memory (rein
 * before the record moved to disk), two processes at a time. A process's
 * peak RSS is then the run's own.
 */
export async function compareMemory(lengths: number[]): Promise<MemoryComparison[]> {
  const rows: MemoryComparison[] = [];
  for (const steps of lengths) {
    const [now, before] = await Promise.all([measureInChild(steps, 'now'), measureInChild(steps, 'before')]);
    rows.push({ steps, now, before });
  }
  return rows;
}
