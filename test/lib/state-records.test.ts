import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stateRecords } from '../../lib/state/state-records.js';

describe('state records: records whose path is gone are swept, at most once a day', () => {
  let home: string;
  let saved: string | undefined;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'rein-state-records-'));
    saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = home;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps a stale record until a day after the last sweep, then drops it and keeps the live one', () => {
    const records = stateRecords<string>('runs');
    const gone = join(home, 'gone');
    const live = join(home, 'live');
    mkdirSync(gone);
    mkdirSync(live);
    records.put('gone', gone, 'a');
    rmSync(gone, { recursive: true });
    records.put('live', live, 'b');
    // Swept by the first put, moments ago: the second does not read every record again.
    expect(records.get('gone')).toBe('a');
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(`${records.dir}.last-pruned`, dayAgo, dayAgo);
    records.put('live', live, 'c');
    expect(records.get('gone')).toBeUndefined();
    expect(records.list()).toEqual([{ key: 'live', value: 'c' }]);
    // The mark is beside the folder: the folder holds the records and nothing else.
    expect(readdirSync(records.dir)).toHaveLength(1);
  });
});
