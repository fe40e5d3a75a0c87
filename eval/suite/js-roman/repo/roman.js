// Roman numerals for chapter headings.

const NUMERALS = [
  [1000, 'M'], [500, 'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [1, 'I'],
];

/** `n` as a Roman numeral. */
export function toRoman(n) {
  let out = '';
  for (const [value, numeral] of NUMERALS) {
    while (n > value) {
      out += numeral;
      n -= value;
    }
  }
  return out;
}
