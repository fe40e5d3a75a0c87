import { type BenchSection, grouped } from '../section.js';
import { measureSnapshotCost } from '../snapshot-cost.js';

/** The cost per step of keeping the workspace for `rein rewind` and `rein fork`. */
export const workspaceSnapshotsSection: BenchSection = {
  id: 'snapshots',
  title: 'Workspace snapshot per step (5,000 files, about 50 MB)',
  async run() {
    const cost = measureSnapshotCost({ files: 5000, stepsPerCase: 15 });
    const ten = cost.rows.find((row) => row.changed === 10)!;
    return {
      tables: [
        {
          headers: ['files changed in the step', 'steps', 'median ms', 'p90 ms', 'median bytes stored'],
          rows: cost.rows.map((row) => [row.changed, row.steps, row.medianMs.toFixed(1), row.p90Ms.toFixed(1), grouped(row.medianBytes)]),
        },
      ],
      notes: [
        `The workspace: ${grouped(cost.files)} files, ${(cost.treeBytes / 1e6).toFixed(1)} MB; its first snapshot took ${cost.first.ms.toFixed(0)} ms and stored ${(cost.first.bytes / 1e6).toFixed(1)} MB.`,
        `A bare readdir and lstat of every entry of the same tree, the floor of a scan that trusts timestamps, took ${cost.floorMs.toFixed(1)} ms (median) in the same process.`,
        `With ten files changed a step costs ${ten.medianMs.toFixed(1)} ms and ${(ten.medianBytes / 1e6).toFixed(2)} MB (median): a readdir and lstat per entry, the changed files' bytes and one tree object per changed folder.`,
      ],
    };
  },
};
