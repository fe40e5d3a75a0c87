#!/usr/bin/env node
// Writes the log files that the offline suite's flood tasks read (eval/suite/*/repo/logs/).
// They are committed; this script only documents how they were made and remakes them
// byte for byte (a seeded generator), e.g. after changing a clue:
//   node dev/scripts/make-suite-logs.mjs
// Each file is ~7.5 KB so ten of them overflow the tasks' 12,000-token window; the clue a
// task's simulated model needs (its fix's `reveal` text) is the last line of file 10.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SUITE = new URL('../../eval/suite/', import.meta.url).pathname;
const FILES = 10;
const TARGET_BYTES = 7_400;

/** A small deterministic generator, so reruns write identical files. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const pick = (random, items) => items[Math.floor(random() * items.length)];
const pad = (n, width = 2) => String(n).padStart(width, '0');
const clock = (random, day) => `2024-09-${pad(day)}T${pad(Math.floor(random() * 24))}:${pad(Math.floor(random() * 60))}:${pad(Math.floor(random() * 60))}Z`;

const LOGS = {
  'js-durations': {
    name: (i) => `scheduler-${pad(i)}.log`,
    line: (random, day) => {
      const every = pick(random, ['45s', '90s', '5m', '15m', '30m', '1h', '1h30m', '2h', '6h', '12h']);
      const job = pick(random, ['backup-db', 'sync-catalog', 'send-digest', 'purge-cache', 'rebuild-index', 'rotate-keys']);
      return `${clock(random, day)} INFO scheduler job=${job} every=${every} ran_in=${Math.floor(random() * 9000)}ms next_in=${every}`;
    },
    clue: '2024-09-30T23:59:01Z WARN scheduler job=archive-logs every=7d: the job file says 7d (days) but the parser ignores it, so the job ran after 0 s',
  },
  'js-retry': {
    name: (i) => `upstream-${pad(i)}.log`,
    line: (random, day) => {
      const status = pick(random, [200, 200, 200, 200, 429, 503, 200, 504]);
      const wait = status === 200 ? '' : ` retry_in=${pick(random, [100, 200, 400, 800, 1600, 3200])}ms`;
      return `${clock(random, day)} inventory-client GET /v2/items/${Math.floor(random() * 99999)} status=${status} latency=${Math.floor(random() * 1200)}ms${wait}`;
    },
    clue: '2024-09-30T23:58:12Z inventory-upstream NOTICE clients must never wait more than 5000 ms between retries; requests held longer are dropped by the gateway',
  },
  'js-roman': {
    name: (i) => `build-${pad(i)}.log`,
    line: (random, day) => {
      const chapter = 1 + Math.floor(random() * 60);
      return `${clock(random, day)} book-build render chapter=${chapter} heading="Chapter ${chapter}" pages=${8 + Math.floor(random() * 30)} words=${2000 + Math.floor(random() * 8000)} ok`;
    },
    clue: '2024-09-30T23:40:00Z book-build WARN chapter 4 heading came out as "IIII", 9 as "VIIII", 40 as "XXXX": subtractive pairs (CM, CD, XC, XL, IX, IV) are missing',
  },
  'py-backup': {
    name: (i) => `backup-job-${pad(i)}.log`,
    line: (random, day) => {
      const step = pick(random, ['dump', 'compress', 'upload', 'verify', 'rotate']);
      return `${clock(random, day)} backup-job step=${step} archive=backup-2024-09-${pad(day)}.tar.gz bytes=${Math.floor(random() * 9e8)} took=${Math.floor(random() * 600)}s status=ok`;
    },
    clue: '2024-09-30T23:30:00Z backup-job NOTICE since v2.4 the job writes .tgz archives (backup-2024-09-30.tgz); older ones stay .tar.gz',
  },
  'py-log-parser': {
    name: (i) => `service-${pad(i)}.log`,
    line: (random, day) => {
      const id = Math.floor(random() * 0xffffff).toString(16);
      const took = random() < 0.5 ? `${Math.floor(random() * 2000)}ms` : `${(random() * 3).toFixed(3)}s`;
      return `${clock(random, day)} INFO api ${pick(random, ['GET', 'POST', 'PUT'])} /orders/${Math.floor(random() * 9999)} request r${id} took ${took}`;
    },
    clue: '2024-09-30T23:59:59Z INFO api logging: since the 2.0 rollout request durations are now logged in seconds (e.g. "took 1.250s"), not only in ms',
  },
};

for (const [task, log] of Object.entries(LOGS)) {
  const dir = join(SUITE, task, 'repo', 'logs');
  mkdirSync(dir, { recursive: true });
  const random = seeded(task.length * 7_919 + task.charCodeAt(3));
  for (let file = 1; file <= FILES; file++) {
    const lines = [];
    let size = 0;
    while (size < TARGET_BYTES) {
      const line = log.line(random, file * 3 - 2 + (lines.length % 3));
      lines.push(line);
      size += line.length + 1;
    }
    if (file === FILES) lines.push(log.clue);
    writeFileSync(join(dir, log.name(file)), `${lines.join('\n')}\n`);
  }
}
