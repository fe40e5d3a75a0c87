import { z } from 'zod';

/**
 * What the default leaves out of the workspace snapshots: installed dependencies and caches that a command rebuilds
 * (large, many files, and reinstalled rather than edited). `.git` and `.rein/` are never in a snapshot, whatever the
 * rules say.
 */
const DEFAULT_SNAPSHOT_EXCLUDE = ['node_modules/', '.venv/', '__pycache__/', '.pytest_cache/', '.mypy_cache/', '.tox/'];

/** `snapshots`: the workspace kept after every step, for `rein rewind` and `rein fork`. */
export const snapshotsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Keep the workspace and the chart after every step, so `rein rewind` and `rein fork` can go back to it'),
    exclude: z
      .array(z.string().min(1))
      .default(DEFAULT_SNAPSHOT_EXCLUDE)
      .describe('Paths (gitignore syntax, from the workspace root) never kept or restored; `.git` and `.rein/` never are'),
  })
  .prefault({});
