// Reads the CSV exports of the accounting system into objects keyed by the header.

/** One line's fields. */
export function parseLine(line, separator = ',') {
  return line.split(',');
}

/** Rows of a CSV text as objects: { column: value }. */
export function parse(text, { separator = ',' } = {}) {
  const [header, ...rows] = text.split('\n');
  const names = parseLine(header, separator);
  return rows.map((row) => Object.fromEntries(parseLine(row, separator).map((value, index) => [names[index], value])));
}
