import type { RecordedStep } from 'rein/testing';
import { type ActionMap, mapShell } from '../action-map.js';
import { inferredExit, normalize } from './observation.js';

/**
 * A named tool call with its result (ATIF, OpenAI chat messages): the tool
 * name through the tool table, a shell tool's command through the shell
 * table. A name neither table knows is replayed as `run` and marked unmapped.
 */
export function toolCallStep(name: string, args: Record<string, unknown>, result: string, map: ActionMap): RecordedStep {
  const output = normalize(result);
  const tool = map.tools[name];
  const raw = `${name} ${JSON.stringify(args)}`.slice(0, 120);
  if (tool === 'shell') {
    const command = String(args.command ?? args.cmd ?? args.script ?? args.keystrokes ?? '');
    const exit = typeof args.exit_code === 'number' ? args.exit_code : inferredExit(output);
    return { ...mapShell(command, map), output, exitCode: exit, raw };
  }
  if (tool === undefined) return { tool: 'run', args: { command: raw }, output, exitCode: inferredExit(output), raw, unmapped: name };
  const path = args.path ?? args.file ?? args.file_path ?? args.filename;
  switch (tool) {
    case 'read_file':
      return { tool, args: { path: String(path ?? ''), ...(args.start !== undefined ? { start: args.start } : {}) }, output, raw };
    case 'grep':
      return { tool, args: { pattern: String(args.pattern ?? args.query ?? args.search_term ?? ''), ...(path ? { path } : {}) }, output, raw };
    case 'edit_file': {
      const failed = /^(?:Tool error|Error|Edit rejected)/.test(output);
      return {
        tool,
        args: {
          path: String(path ?? ''),
          old: String(args.old ?? args.old_str ?? args.old_string ?? ''),
          new: String(args.new ?? args.new_str ?? args.new_string ?? args.content ?? ''),
        },
        output,
        edit: { applied: !failed },
        raw,
      };
    }
    case 'update_todo':
      return { tool, args, output, todo: Array.isArray(args.items) ? (args.items as Array<{ task: string; done: boolean }>) : [], raw };
    default:
      return { tool, args, output, raw };
  }
}
