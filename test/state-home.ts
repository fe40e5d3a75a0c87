// The suite's own user state dir (XDG_STATE_HOME): the snapshot store, trust records and demo runs every test and every
// `rein` process it starts write there, never into the state dir of the person running the tests. Removed at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function setup(): () => void {
  const stateHome = mkdtempSync(join(tmpdir(), 'rein-test-state-'));
  // Set before the test workers are forked: they and the processes they start inherit it.
  process.env.XDG_STATE_HOME = stateHome;
  return () => rmSync(stateHome, { recursive: true, force: true });
}
