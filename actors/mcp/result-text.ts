import { headTail } from '../../lib/head-tail.js';
import type { ToolResult } from './server-handle.js';

/** Most characters read from one content item before the whole result is capped (a 50 MB text is not joined first). */
const ITEM_CHARS = 200_000;

/**
 * An MCP `CallToolResult` as one observation: text items as they are, images
 * and audio as a one-line placeholder (their base64 would only burn tokens),
 * embedded resources by their text or URI, `structuredContent` as JSON when
 * there is no text; the whole capped head+tail at `cap` like `run` output.
 *
 * @example resultText({ content: [{ type: 'text', text: 'hi' }] }, 6000) // 'hi'
 */
export function resultText(result: ToolResult, cap: number): string {
  const items = Array.isArray(result.content) ? result.content : [];
  const parts = items.map(itemText).filter((part) => part !== '');
  const structured = result.structuredContent ?? result.toolResult;
  if (parts.length === 0 && structured !== undefined) parts.push(clip(safeJson(structured)));
  const text = parts.join('\n');
  return headTail(text === '' ? '(the tool returned no content)' : text, cap);
}

function itemText(item: unknown): string {
  if (item === null || typeof item !== 'object') return '';
  const record = item as Record<string, unknown>;
  switch (record.type) {
    case 'text':
      return clip(typeof record.text === 'string' ? record.text : '');
    case 'image':
    case 'audio':
      return `[${record.type} ${str(record.mimeType)}, ${typeof record.data === 'string' ? Math.floor((record.data.length * 3) / 4) : 0} bytes, not shown]`;
    case 'resource': {
      const resource = (record.resource ?? {}) as Record<string, unknown>;
      return typeof resource.text === 'string' ? clip(resource.text) : `[resource ${str(resource.uri)} ${str(resource.mimeType)}, not shown]`;
    }
    case 'resource_link':
      return `[link ${str(record.name)}: ${str(record.uri)}]`;
    default:
      return `[${str(record.type)} content, not shown]`;
  }
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 200) : '';
}

function clip(text: string): string {
  return text.length <= ITEM_CHARS ? text : headTail(text, ITEM_CHARS);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '(structured content that cannot be shown)';
  }
}
