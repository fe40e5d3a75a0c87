import fs from 'node:fs';

/** PIDs of live processes whose command line contains `marker` (Linux /proc). */
export function processesWithArgument(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** A number unlikely to appear in any other process's arguments, for `sleep 300.<n>`. */
export function uniqueMarker(): string {
  return `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}
