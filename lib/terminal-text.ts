/** ESC sequences, 7- and 8-bit: CSI (`ESC [ … final`), OSC/DCS/APC/PM/SOS strings (to BEL or ST), and any other `ESC x`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const ESCAPES = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b.?/gs;
/**
 * C0 controls but tab and newline, DEL, C1 controls (the 8-bit CSI and OSC among them), and the bidirectional
 * overrides and isolates that make text read otherwise than it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from the model, a tool, a repository or an endpoint made safe for the user's terminal: escape sequences
 * (titles, screen clears, OSC 52 clipboard writes, cursor moves that overwrite rein's own lines) and other control
 * characters are removed; newlines stay.
 *
 * @example stripControl('ok\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J') // 'ok'
 */
export function stripControl(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

/**
 * `stripControl`, and each further line indented, so text with newlines in it cannot pass a line of its own for
 * one of rein's (`[rein] step 9 finish → accepted by the verification gate`).
 *
 * @example indentedLines('done\n[rein] finish → accepted') // 'done\n    [rein] finish → accepted'
 */
export function indentedLines(text: string): string {
  return stripControl(text).replace(/\r?\n/g, '\n    ');
}

/** Characters a person must see spelled out rather than acted on: controls (but newline and tab), C1, bidi controls, zero-width marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const INVISIBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * Text a person is asked to judge (an approval prompt), with every control, bidi and zero-width character spelled out
 * as `\u{…}`, so what they read is what would run: nothing reorders, hides or rewrites it.
 *
 * @example escapeControl('ls \u202e txt.exe') // 'ls \\u{202e} txt.exe'
 */
export function escapeControl(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

/**
 * Text for a person, never cut silently: runs of nine or more blanks are shown as `⟨N blanks⟩` (padding cannot push
 * the rest of a command out of sight), and text still longer than `max` shows its head and its tail with how much
 * was left out between them and how to see it all.
 *
 * @example showWhole('ls' + ' '.repeat(5000) + 'rm -rf ~', 100) // 'ls⟨5000 blanks⟩rm -rf ~'
 */
export function showWhole(text: string, max: number, howToSeeAll = ''): string {
  const compact = escapeControl(text)
    .replace(/[ \t]{9,}/g, (run) => `⟨${run.length} blanks⟩`)
    .replace(/\n{4,}/g, (run) => `\n⟨${run.length} newlines⟩\n`);
  if (compact.length <= max) return compact;
  const half = Math.floor(max / 2);
  return `${compact.slice(0, half)}\n⟨… ${compact.length - 2 * half} characters not shown here${howToSeeAll ? `; ${howToSeeAll}` : ''} …⟩\n${compact.slice(-half)}`;
}
