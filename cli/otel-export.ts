import { type LiveExport, startLiveExport } from 'rein-telemetry/live-export.js';
import { displayUrl, type OtlpSettings } from 'rein-telemetry/otlp-settings.js';
import type { RunFacts } from 'rein-telemetry/run-attributes.js';
import type { Io } from './execute-run.js';

/**
 * The live OpenTelemetry export of one run, with what the terminal shows of it:
 * where spans go (one line at the start) and at most one warning.
 */
export function startOtelExport(settings: OtlpSettings, facts: RunFacts, io: Io): LiveExport & { startNote: string } {
  const live = startLiveExport(settings, {
    facts,
    // A warning may come while the status line is drawn: clear it first.
    warn: (text) => {
      io.stderr.write(`${io.stderr.isTTY ? '\r\x1b[2K' : ''}${text}\n`);
    },
  });
  const notes = settings.notes.map((note) => `rein: OpenTelemetry: ${note}\n`).join('');
  return {
    ...live,
    startNote: `rein: OpenTelemetry: spans go to ${displayUrl(settings.url)} (contents ${settings.content ? 'included' : 'left out'})\n${notes}`,
  };
}
