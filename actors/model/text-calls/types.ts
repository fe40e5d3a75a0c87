/** The text shapes rein recovers tool calls from, in the order the dispatcher tries them. */
export const TEXT_CALL_SHAPES = ['hermes', 'function-tag', 'mistral', 'llama', 'fenced-json'] as const;
export type TextCallShape = (typeof TEXT_CALL_SHAPES)[number];

/** One call as written in the text: the arguments are a value when they parsed, else the raw text. */
export interface TextCall {
  name: string;
  arguments: unknown;
  /** Set when the call's JSON needed a lenient parse: the text as the model wrote it. */
  repairedFrom?: string;
}

/** A block of the content that holds calls: `start`/`end` are offsets into the content (end exclusive). */
export interface FoundBlock {
  shape: TextCallShape;
  start: number;
  end: number;
  calls: TextCall[];
}

/** A parser for one shape: every block of that shape outside `skip` (quoted code). */
export type ShapeParser = (content: string, skip: (offset: number) => boolean) => FoundBlock[];
