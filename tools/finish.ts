import { z } from 'zod';
import type { Tool } from './types.js';

const parameters = z
  .object({
    summary: z.string().describe('One paragraph: what was changed and how it was verified.'),
  })
  .strict();

/**
 * `finish`: asks to end the run. It only reports the request; the machine's
 * verification gate decides whether the run may end (seed component 6).
 *
 * @example await finishTool.execute({ summary: 'Fixed the off-by-one in mean(); pytest -q passes.' }, ctx)
 */
export const finishTool: Tool<typeof parameters> = {
  name: 'finish',
  description: 'Declare the task complete, with a one-paragraph summary.',
  parameters,
  async execute({ summary }) {
    return { content: 'Finish requested.', ok: true, effect: { kind: 'finish', summary } };
  },
};
