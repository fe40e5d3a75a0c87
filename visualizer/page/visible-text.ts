/** Characters a person must see spelled out: controls (but newline and tab), C1, bidi controls, zero-width marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const INVISIBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * The page's copy of the core's `escapeControl` (lib/terminal-text.ts; the browser bundle does not load the core):
 * every control, bidi and zero-width character spelled out as `\u{…}`. A test holds the two to the same output.
 *
 * @example visibleText('ls \u202e txt.exe') // 'ls \\u{202e} txt.exe'
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
