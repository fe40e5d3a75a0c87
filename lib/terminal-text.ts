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
