import { gitConfigPaths } from '../../tools/sandbox/plan/git-config-paths.js';
import {
  checkHostFiles,
  describeHostFilesReport,
  type HostFilesBaseline,
  type HostFilesReport,
  takeHostFilesBaseline,
} from '../../tools/sandbox/watch/host-run-files.js';
import type { Tracer } from '../record/trace.js';
import type { ResourceStack } from '../resource-stack.js';

/**
 * Watches what the host would run from the workspace for the length of the run: the baseline is taken before any
 * command runs; when the run is released, a repository it created or redirected is moved aside and every changed
 * host-run file (`.husky/`, `.envrc`, `.vscode/tasks.json`, …) is named, in the trace (`host_files`) and to the person.
 *
 * @example watchHostFiles({ workspace, env, trace, notice }, held);
 */
export function watchHostFiles(parts: { workspace: string; env: NodeJS.ProcessEnv; trace: Tracer; notice: (text: string) => void }, held: ResourceStack): void {
  const { workspace, trace, notice } = parts;
  const named = gitConfigPaths(workspace, parts.env).map((entry) => entry.path);
  const baseline: HostFilesBaseline = takeHostFilesBaseline(workspace, named);
  held.own('the host-files watch', baseline, () => {
    const report: HostFilesReport = checkHostFiles(workspace, baseline);
    if (report.quarantined.length === 0 && report.changed.length === 0 && !report.unchecked) return;
    trace.log('host_files', report);
    for (const line of describeHostFilesReport(report)) notice(line);
  });
}
