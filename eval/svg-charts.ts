/** One bar: its label, its length, and the text printed after it. */
interface Bar {
  label: string;
  value: number;
  text: string;
}

const ROW = 26;
const LABEL_WIDTH = 200;
const BAR_WIDTH = 300;
const TEXT_WIDTH = 110;

/**
 * A horizontal bar chart as inline SVG (no scripts, no external files), so
 * report.html opens offline anywhere.
 *
 * @example barChart('Resolved', [{ label: 'default', value: 0.9, text: '90%' }], { max: 1, color: '#2f7d4f' })
 */
export function barChart(title: string, bars: readonly Bar[], options: { max?: number; color: string }): string {
  const max = options.max ?? Math.max(...bars.map((bar) => bar.value), 0);
  const width = LABEL_WIDTH + BAR_WIDTH + TEXT_WIDTH;
  const height = ROW * bars.length + 34;
  const rows = bars.map((bar, index) => {
    const y = 30 + index * ROW;
    const length = max > 0 ? Math.max(0, (bar.value / max) * BAR_WIDTH) : 0;
    return [
      `<text x="${LABEL_WIDTH - 8}" y="${y + 14}" text-anchor="end">${escapeXml(bar.label)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 2}" width="${BAR_WIDTH}" height="${ROW - 8}" fill="#eef0f3"/>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 2}" width="${length.toFixed(1)}" height="${ROW - 8}" fill="${options.color}"><title>${escapeXml(`${bar.label}: ${bar.text}`)}</title></rect>`,
      `<text x="${LABEL_WIDTH + BAR_WIDTH + 8}" y="${y + 14}">${escapeXml(bar.text)}</text>`,
    ].join('');
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="13">` +
    `<text x="0" y="16" font-weight="600">${escapeXml(title)}</text>${rows.join('')}</svg>`
  );
}

/** Escapes text for XML and HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
