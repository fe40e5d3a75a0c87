import { type BenchSection, grouped } from '../section.js';
import { measureSnapshotCost } from '../snapshot-cost.js';

/** The cost per step of keeping the workspace for `rein rewind` and `rein fork`. */
export const workspaceSnapshotsSection: BenchSection = {
  id: 'snapshots',
  title: 'Workspace snapshot per step (5,000 files, about 50 MB)',
  async run() {
    const cost = await measureSnapshotCost({ files: 5000, stepsPerCase: 15 });
    const ten = cost.rows.find((row) => row.changed === 10)!;
    return {
      tables: [
        {
          headers: [
            'files changed in the step',
            'steps',
            'at the step end ms',
            'longest slice ms',
            'to the snapshot ms (median)',
            'p90 ms',
            'blocking scan ms',
            'median bytes stored',
          ],
          rows: cost.rows.map((row) => [
            row.changed,
            row.steps,
            row.askMs.toFixed(2),
            row.pauseMs.toFixed(1),
            row.medianMs.toFixed(1),
            row.p90Ms.toFixed(1),
            row.blockingMs.toFixed(1),
            grouped(row.medianBytes),
          ]),
        },
      ],
      notes: [
        `The workspace: ${grouped(cost.files)} files, ${(cost.treeBytes / 1e6).toFixed(1)} MB; its first snapshot took ${cost.first.ms.toFixed(0)} ms and stored ${(cost.first.bytes / 1e6).toFixed(1)} MB.`,
        `A run scans the workspace in slices of about 2 ms while it sends the next request and waits for the reply; the next command waits for the snapshot.`,
        `What a step pays is therefore the time at the step's end (${ten.askMs.toFixed(2)} ms with ten files changed) plus at most one slice (${ten.pauseMs.toFixed(1)} ms, the longest the thread was held) whenever the model takes longer than the scan (${ten.medianMs.toFixed(1)} ms from the step's end to the snapshot, median);`,
        `a model that answers faster makes the next command wait for the rest of the scan, at most that long. The scan itself stored ${(ten.medianBytes / 1e6).toFixed(2)} MB (median) for ten changed files: their bytes and one tree object per changed folder.`,
        `Against issue 43's goal of under 20 ms and 1 MB a step with ten files changed: a step pays ${(ten.askMs + ten.pauseMs).toFixed(1)} ms and ${(ten.medianBytes / 1e6).toFixed(2)} MB (${ten.askMs + ten.pauseMs < 20 && ten.medianBytes < 1e6 ? 'met' : 'not met'}) while the model takes longer than ${ten.medianMs.toFixed(0)} ms to answer; with a model that answers at once it is ${ten.medianMs.toFixed(1)} ms (${ten.medianMs < 20 ? 'met' : 'not met'}).`,
        `Left out: the copy of the chart's state each step also stores (one JSON object, written at the step's end; it is in the whole-run section's figures).`,
        `For comparison, the same scan run blocking took ${ten.blockingMs.toFixed(1)} ms, and a bare readdir and lstat of every entry, the floor of a scan that trusts timestamps, ${cost.floorMs.toFixed(1)} ms (median), in the same process.`,
      ],
    };
  },
};
