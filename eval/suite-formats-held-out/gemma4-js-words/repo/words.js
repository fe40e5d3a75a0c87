// Word statistics for the editor's status bar.
export function countWords(text) {
  return text.split(' ').length;
}

export function longestWord(text) {
  const words = text.split(/\s+/).filter(Boolean);
  return words.reduce((longest, word) => (word.length >= longest.length ? word : longest), '');
}
