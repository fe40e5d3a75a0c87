import type { BenchSection } from '../section.js';
import { measureSyntaxChecks } from '../syntax-checks.js';

/** The syntax check after an edit: one warm python3 per run against a process per check. */
export const syntaxChecksSection: BenchSection = {
  id: 'syntax',
  title: 'Syntax check of an edit to a 300-line Python file',
  async run() {
    const syntax = await measureSyntaxChecks();
    const warm = syntax.rows.find((row) => row.checker.includes('warm'))!;
    return {
      tables: [
        {
          headers: ['checker', 'checks', 'first check ms', 'median ms after the first', 'vs warm python'],
          rows: syntax.rows.map((row) => [
            row.checker,
            row.checks,
            row.firstMs.toFixed(1),
            row.medianMs.toFixed(2),
            `${(row.medianMs / warm.medianMs).toFixed(1)}x`,
          ]),
        },
      ],
      notes: [`python3 on PATH: ${syntax.python.path}${syntax.python.shim ? `, a shim for ${syntax.python.interpreter}` : ''}.`],
    };
  },
};
