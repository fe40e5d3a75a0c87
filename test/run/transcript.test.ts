import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../context/messages.js';
import { readRecord, Transcript } from '../../run/record/transcript.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A record with multi-byte text and results of varied size, so byte offsets and line scanning are exercised. */
function messages(count: number, from = 0): ChatMessage[] {
  return Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    if (index === 0) return { role: 'system', content: 'système' };
    if (index === 1) return { role: 'user', content: 'la tâche' };
    return index % 2 === 0
      ? {
          role: 'assistant',
          content: `étape ${index} ✓`,
          tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'run', arguments: `{"n":${index}}` } }],
        }
      : { role: 'tool', tool_call_id: `c${index - 1}`, content: `résultat ${index}\n`.repeat(1 + ((index * 37) % 400)) };
  });
}

describe('Transcript: the record on disk, the newest messages in memory', () => {
  it('gives back every message, in memory or read from the file, before and after the writes are flushed', () => {
    const file = path.join(makeTempDir(), 'record.jsonl');
    const record = new Transcript(file);
    const all = messages(1000);
    record.append(all.slice(0, 700));
    // Unflushed lines are read back too.
    expect(record.at(300)).toEqual(all[300]);
    record.append(all.slice(700));
    expect(record.length).toBe(1000);
    for (const index of [0, 1, 2, 63, 64, 65, 127, 128, 500, 935, 936, 999]) expect(record.at(index), `message ${index}`).toEqual(all[index]);
    expect(record.at(1000)).toBeUndefined();
    expect(record.slice(0, 1000)).toEqual(all);
    expect(record.slice(130, 140)).toEqual(all.slice(130, 140));
    expect(record.slice(990, 2000)).toEqual(all.slice(990));
    record.close();
    expect(readRecord(file)).toEqual(all);
  });

  it("holds the head and the newest messages, not the whole record: memory does not grow with the run's length", () => {
    const record = new Transcript(path.join(makeTempDir(), 'record.jsonl'));
    record.append(messages(100));
    const after100 = record.held;
    record.append(messages(4900, 100));
    expect(record.held).toBeLessThanOrEqual(2 + 128);
    expect(record.held).toBeLessThanOrEqual(Math.max(after100, 130));
    expect(record.at(2)).toEqual(messages(3)[2]);
    // Without a file there is nowhere to read from: everything stays.
    const memory = new Transcript(null);
    memory.append(messages(500));
    expect(memory.held).toBe(500);
  });

  it('resumes from the first messages a saved state counts: the rest of the file is cut, and appending goes on from there', () => {
    const file = path.join(makeTempDir(), 'record.jsonl');
    const first = new Transcript(file);
    const all = messages(400);
    first.append(all);
    first.close();
    // A process killed mid-line leaves a cut last line after the messages.
    fs.appendFileSync(file, '{"role":"tool","tool_call_id":"c4');
    const resumed = Transcript.resume(file, 250);
    expect(resumed.length).toBe(250);
    expect(resumed.slice(0, 250)).toEqual(all.slice(0, 250));
    const more = messages(100, 250);
    resumed.append(more);
    expect(resumed.at(300)).toEqual(more[50]);
    expect(resumed.slice(240, 260)).toEqual([...all.slice(240, 250), ...more.slice(0, 10)]);
    resumed.close();
    expect(readRecord(file)).toEqual([...all.slice(0, 250), ...more]);
  });

  it('refuses a record shorter than the saved state says, or with a corrupt line inside it', () => {
    const file = path.join(makeTempDir(), 'record.jsonl');
    const record = new Transcript(file);
    record.append(messages(10));
    record.close();
    expect(() => Transcript.resume(file, 11)).toThrow(/has 10 messages, the saved state expects 11/);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^.*"c4".*$/m, '{not json'));
    expect(() => Transcript.resume(file, 10)).toThrow(/line \d+ is not JSON/);
    expect(Transcript.resume(path.join(path.dirname(file), 'absent.jsonl'), 0).length).toBe(0);
  });
});
