/** What several formats share: telling from an observation whether a command failed, and normalizing its line ends. */

/** CRLF → LF, as the agents' own records differ in it. */
export const normalize = (text: string) => text.replace(/\r\n/g, '\n');

/** An exit code inferred from the text when the format records none: a traceback, an `…Error:` line, a missing command or file, failing tests. */
export function inferredExit(output: string): number {
  return /Traceback \(most recent call last\)|^\w*Error:|command not found|No such file or directory|^FAILED |\d+ failed/m.test(output) ? 1 : 0;
}
