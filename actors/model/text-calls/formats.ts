import { gemmaValue, pyJson, pyRepr, tagValue } from './render-values.js';

/** One call to write: its tool, its arguments, and the id a format that carries ids writes (else one is made up). */
interface RenderCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** A tool-call format of the census (docs/endpoints.md, "Tool-call formats rein reads"). */
interface TextCallFormat {
  /** The census entry (F1…F14). */
  census: string;
  /** The model families that write it. */
  families: string;
  /** The calls as the family's template renders them (or its parser's tests write them), several joined as it joins them. */
  render(calls: readonly RenderCall[]): string;
  /** How the family writes reasoning before its calls, when it does. */
  thinking?: (text: string) => string;
}

const DS = {
  begin: '<｜tool▁calls▁begin｜>',
  end: '<｜tool▁calls▁end｜>',
  call: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  sep: '<｜tool▁sep｜>',
};
const think = (text: string) => `<think>\n${text}\n</think>\n\n`;
const hermesObject = (call: RenderCall) => `{"name": ${JSON.stringify(call.name)}, "arguments": ${pyJson(call.args)}}`;
const each = (calls: readonly RenderCall[], one: (call: RenderCall, index: number) => string, join = '\n') => calls.map(one).join(join);
const jsonList = (calls: readonly RenderCall[]) => `[${calls.map(hermesObject).join(', ')}]`;
const pythonicCall = (call: RenderCall, repr: (value: unknown) => string = pyRepr) =>
  `${call.name}(${Object.entries(call.args)
    .map(([key, value]) => `${key}=${repr(value)}`)
    .join(', ')})`;
/** Python repr with double-quoted strings, as LFM2 and Llama 4 write them. */
const doubleQuoted = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : pyRepr(value));
const xmlParameters = (call: RenderCall, newline: boolean) =>
  Object.entries(call.args)
    .map(([key, value]) => `<parameter=${key}>\n${tagValue(value, 'repr')}\n</parameter>${newline ? '\n' : ''}`)
    .join('');
const qwenCoder = (call: RenderCall) => `<function=${call.name}>\n${xmlParameters(call, true)}</function>`;
const invokes = (call: RenderCall, prefix: string, close = '\n') =>
  `<${prefix}invoke name="${call.name}">${close}${Object.entries(call.args)
    .map(([key, value]) => `<${prefix}parameter name="${key}">${tagValue(value, 'json')}</${prefix}parameter>${close}`)
    .join('')}</${prefix}invoke>`;
/** A Mistral-style id: 9 letters and digits, made from the position when the call has none. */
const nineChars = (call: RenderCall, index: number) => (call.id && /^[A-Za-z0-9]{9}$/.test(call.id) ? call.id : `call${String(index).padStart(5, '0')}`);

/**
 * The formats of the census, each rendering calls exactly as its family's
 * chat template (or its parser's tests) writes them. The test kit's
 * `textReply`, the offline suite's text-calling models and the recognizer's
 * round-trip properties use them; the recognizer itself knows none of them by name.
 */
export const TEXT_CALL_FORMATS = {
  hermes: {
    census: 'F1',
    families: 'Qwen2.5, QwQ, Qwen3, Hermes 2 Pro/3, ERNIE 4.5, Xiaomi MiMo',
    render: (calls) => each(calls, (call) => `<tool_call>\n${hermesObject(call)}\n</tool_call>`),
    thinking: think,
  },
  granite4: {
    census: 'F1',
    families: 'Granite 4 (arguments encoded as a JSON string)',
    render: (calls) =>
      each(calls, (call) => `<tool_call>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${JSON.stringify(pyJson(call.args))}}\n</tool_call>`),
  },
  longcat: {
    census: 'F1',
    families: 'LongCat-Flash',
    render: (calls) => each(calls, (call) => `<longcat_tool_call>${hermesObject(call)}</longcat_tool_call>`, ''),
  },
  'qwen3-coder': {
    census: 'F2',
    families: 'Qwen3-Coder, Nemotron 3 Nano, Step 3.5',
    render: (calls) => each(calls, (call) => `<tool_call>\n${qwenCoder(call)}\n</tool_call>`),
    thinking: (text) => `${text}</think>\n`,
  },
  'qwen3.5': {
    census: 'F2',
    families: 'Qwen3.5',
    render: (calls) => each(calls, (call) => `<tool_call><function=${call.name}>${xmlParameters(call, false)}</function></tool_call>`, ''),
    thinking: think,
  },
  'seed-oss': {
    census: 'F2',
    families: 'Seed-OSS',
    render: (calls) => each(calls, (call) => `<seed:tool_call>\n${qwenCoder(call)}\n</seed:tool_call>`),
    thinking: (text) => `<seed:think>${text}</seed:think>`,
  },
  glm45: {
    census: 'F3',
    families: 'GLM-4.5, GLM-4.6',
    render: (calls) =>
      each(
        calls,
        (call) =>
          `<tool_call>${call.name}\n${Object.entries(call.args)
            .map(([key, value]) => `<arg_key>${key}</arg_key>\n<arg_value>${tagValue(value, 'json')}</arg_value>\n`)
            .join('')}</tool_call>`,
      ),
    thinking: (text) => `<think>${text}</think>\n`,
  },
  glm47: {
    census: 'F3',
    families: 'GLM-4.7, GLM-5',
    render: (calls) =>
      each(
        calls,
        (call) =>
          `<tool_call>${call.name}${Object.entries(call.args)
            .map(([key, value]) => `<arg_key>${key}</arg_key><arg_value>${tagValue(value, 'json')}</arg_value>`)
            .join('')}</tool_call>`,
        '',
      ),
    thinking: (text) => `<think>${text}</think>`,
  },
  'minimax-m2': {
    census: 'F4',
    families: 'MiniMax M2',
    render: (calls) => `<minimax:tool_call>\n${each(calls, (call) => invokes(call, ''))}\n</minimax:tool_call>`,
    thinking: think,
  },
  'deepseek-v32': {
    census: 'F4',
    families: 'DeepSeek V3.2 (DSML)',
    render: (calls) =>
      `<｜DSML｜function_calls>\n${each(
        calls,
        (call) =>
          `<｜DSML｜invoke name="${call.name}">\n${Object.entries(call.args)
            .map(
              ([key, value]) =>
                `<｜DSML｜parameter name="${key}" string="${typeof value === 'string'}">${typeof value === 'string' ? value : pyJson(value)}</｜DSML｜parameter>\n`,
            )
            .join('')}</｜DSML｜invoke>`,
      )}\n</｜DSML｜function_calls>`,
    thinking: (text) => `${text}</think>`,
  },
  step3: {
    census: 'F4',
    families: 'Step3',
    render: (calls) =>
      `<｜tool_calls_begin｜>${each(calls, (call) => `<｜tool_call_begin｜>function<｜tool_sep｜>${invokes(call, 'steptml:', '')}<｜tool_call_end｜>`, '')}<｜tool_calls_end｜>`,
  },
  'deepseek-v3': {
    census: 'F5',
    families: 'DeepSeek V3, V3-0324, R1, R1-0528 and the R1 distills',
    render: (calls) =>
      `${DS.begin}${each(calls, (call) => `${DS.call}function${DS.sep}${call.name}\n\`\`\`json\n${pyJson(call.args)}\n\`\`\`${DS.callEnd}`, '')}${DS.end}`,
    thinking: (text) => `<think>\n${text}\n</think>\n\n`,
  },
  'deepseek-v31': {
    census: 'F5',
    families: 'DeepSeek V3.1',
    render: (calls) => `${DS.begin}${each(calls, (call) => `${DS.call}${call.name}${DS.sep}${pyJson(call.args)}${DS.callEnd}`, '')}${DS.end}`,
    thinking: (text) => `${text}</think>`,
  },
  'kimi-k2': {
    census: 'F6',
    families: 'Kimi K2, K2-0905, K2-Thinking, K2.5',
    render: (calls) =>
      `<|tool_calls_section_begin|>${each(
        calls,
        (call, index) => `<|tool_call_begin|>${call.id ?? `functions.${call.name}:${index}`}<|tool_call_argument_begin|>${pyJson(call.args)}<|tool_call_end|>`,
        '',
      )}<|tool_calls_section_end|>`,
    thinking: (text) => `<think>${text}</think>`,
  },
  harmony: {
    census: 'F7',
    families: 'gpt-oss-20b, gpt-oss-120b',
    render: (calls) =>
      each(
        calls,
        (call) => `<|start|>assistant<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${JSON.stringify(call.args)}<|call|>`,
        '',
      ),
    thinking: (text) => `<|channel|>analysis<|message|>${text}<|end|>`,
  },
  'mistral-v7': {
    census: 'F8',
    families: 'Mistral 7B v0.3, Nemo, Large 2, Small 3.0/3.1 (tokenizer v2–v7)',
    render: (calls) => `[TOOL_CALLS]${jsonList(calls)}`,
  },
  'mistral-v11': {
    census: 'F8',
    families: 'Mistral Small 3.2, Magistral, Devstral (tokenizer v11 with call ids)',
    render: (calls) => each(calls, (call, index) => `[TOOL_CALLS]${call.name}[CALL_ID]${nineChars(call, index)}[ARGS]${JSON.stringify(call.args)}`, ''),
    thinking: (text) => `[THINK]${text}[/THINK]`,
  },
  'mistral-v13': {
    census: 'F8',
    families: 'Ministral, Mistral Small/Medium (tokenizer v13, v15)',
    render: (calls) => each(calls, (call) => `[TOOL_CALLS]${call.name}[ARGS]${JSON.stringify(call.args)}`, ''),
    thinking: (text) => `[THINK]${text}[/THINK]`,
  },
  'llama3-json': {
    census: 'F9',
    families: 'Llama 3.1, 3.2, 3.3 and Llama 4 in JSON mode',
    render: (calls) => each(calls, (call) => `{"name": ${JSON.stringify(call.name)}, "parameters": ${pyJson(call.args)}}`, '; '),
  },
  'llama3-python-tag': {
    census: 'F9',
    families: 'Llama 3.1 with <|python_tag|>',
    render: (calls) => `<|python_tag|>${each(calls, (call) => `{"name": ${JSON.stringify(call.name)}, "parameters": ${pyJson(call.args)}}`, '; ')}<|eom_id|>`,
  },
  pythonic: {
    census: 'F10',
    families: 'Llama 3.2 (pythonic prompt), Llama 4, ToolACE, prompted Gemma 3',
    render: (calls) => `[${each(calls, (call) => pythonicCall(call), ', ')}]`,
  },
  olmo3: {
    census: 'F10',
    families: 'Olmo 3',
    render: (calls) => `<function_calls>${each(calls, (call) => pythonicCall(call))}</function_calls>`,
  },
  lfm2: {
    census: 'F10',
    families: 'LFM2',
    render: (calls) => each(calls, (call) => `<|tool_call_start|>[${pythonicCall(call, doubleQuoted)}]<|tool_call_end|>`, ''),
  },
  'llama4-python-start': {
    census: 'F10',
    families: 'Llama 4 (with <|python_start|>)',
    render: (calls) => `<|python_start|>[${each(calls, (call) => pythonicCall(call, doubleQuoted), ', ')}]<|python_end|>`,
  },
  nemotron: {
    census: 'F11',
    families: 'Llama-3.3-Nemotron-Super-49B-v1.5, Nemotron Nano v2',
    render: (calls) => `<TOOLCALL>${jsonList(calls)}</TOOLCALL>`,
    thinking: think,
  },
  granite3: {
    census: 'F11',
    families: 'Granite 3.0, 3.1',
    render: (calls) => `<|tool_call|>${jsonList(calls)}`,
  },
  jamba: {
    census: 'F11',
    families: 'Jamba 1.5, Hunyuan A13B, Apriel 1.5',
    render: (calls) => `<tool_calls>${jsonList(calls)}</tool_calls>`,
  },
  'minimax-m1': {
    census: 'F11',
    families: 'MiniMax M1, MiniMax Text-01',
    render: (calls) => `<tool_calls>\n${each(calls, hermesObject)}\n</tool_calls>`,
    thinking: think,
  },
  apertus: {
    census: 'F11',
    families: 'Apertus',
    render: (calls) => `<|tools_prefix|>[${each(calls, (call) => `{${JSON.stringify(call.name)}: ${pyJson(call.args)}}`, ', ')}]<|tools_suffix|>`,
  },
  'phi4-mini': {
    census: 'F11',
    families: 'Phi-4-mini, Firefunction v2',
    render: (calls) => `functools${jsonList(calls)}`,
  },
  cohere: {
    census: 'F12',
    families: 'Command R7B, Command A',
    render: (calls) =>
      `<|START_ACTION|>[\n${each(
        calls,
        (call, index) =>
          `    {"tool_call_id": ${JSON.stringify(call.id ?? String(index))}, "tool_name": ${JSON.stringify(call.name)}, "parameters": ${pyJson(call.args)}}`,
        ',\n',
      )}\n]<|END_ACTION|>`,
    thinking: (text) => `<|START_THINKING|>${text}<|END_THINKING|>`,
  },
  'command-r': {
    census: 'F12',
    families: 'Command R, Command R+',
    render: (calls) =>
      `Action: \`\`\`json\n[\n${each(
        calls,
        (call) => `    {\n        "tool_name": ${JSON.stringify(call.name)},\n        "parameters": ${pyJson(call.args)}\n    }`,
        ',\n',
      )}\n]\`\`\``,
  },
  'functionary-v31': {
    census: 'F13',
    families: 'Functionary v3.1',
    render: (calls) => each(calls, (call) => `<function=${call.name}>${pyJson(call.args)}</function>`, ''),
  },
  'functionary-v32': {
    census: 'F13',
    families: 'Functionary v3.2',
    render: (calls) => each(calls, (call) => `>>>${call.name}\n${pyJson(call.args)}`),
  },
  internlm2: {
    census: 'F14',
    families: 'InternLM 2.5',
    render: (calls) =>
      each(calls, (call) => `<|action_start|><|plugin|>\n{"name": ${JSON.stringify(call.name)}, "parameters": ${pyJson(call.args)}}<|action_end|>`),
  },
  gigachat3: {
    census: 'F14',
    families: 'GigaChat 3',
    render: (calls) => each(calls, (call) => `function call<|role_sep|>\n${hermesObject(call)}`),
  },
  functiongemma: {
    census: 'F14',
    families: 'FunctionGemma (Gemma 3 270M)',
    render: (calls) => each(calls, (call) => `<start_function_call>call:${call.name}${gemmaValue(call.args, '<escape>')}<end_function_call>`, ''),
  },
  gemma4: {
    census: 'F14',
    families: 'Gemma 4',
    render: (calls) => each(calls, (call) => `<|tool_call>call:${call.name}${gemmaValue(call.args, '<|"|>')}<tool_call|>`, ''),
    thinking: (text) => `<|channel>thought\n${text}<channel|>`,
  },
  'granite-20b-fc': {
    census: 'F14',
    families: 'Granite-20B-FunctionCalling',
    render: (calls) => each(calls, (call) => `<function_call> ${hermesObject(call)}`, ' '),
  },
  xlam: {
    census: 'F14',
    families: 'xLAM',
    render: (calls) => jsonList(calls),
  },
  'llamacpp-generic': {
    census: 'F14',
    families: "llama.cpp's generic format (any template it does not know)",
    render: (calls) => (calls.length === 1 ? `{"tool_call": ${hermesObject(calls[0]!)}}` : `{"tool_calls": ${jsonList(calls)}}`),
  },
  'fenced-json': {
    census: 'F14',
    families: 'models without tool tokens that answer in Markdown (xLAM, prompted models)',
    render: (calls) =>
      `\`\`\`json\n${
        calls.length === 1
          ? JSON.stringify({ name: calls[0]!.name, arguments: calls[0]!.args }, null, 2)
          : JSON.stringify(
              calls.map((call) => ({ name: call.name, arguments: call.args })),
              null,
              2,
            )
      }\n\`\`\``,
  },
} as const satisfies Record<string, TextCallFormat>;

export type TextCallFormatName = keyof typeof TEXT_CALL_FORMATS;

/** The census formats' names, in the census's order. */
export const TEXT_CALL_FORMAT_NAMES = Object.keys(TEXT_CALL_FORMATS) as TextCallFormatName[];

/**
 * Calls written in one census format, with the family's reasoning before them when `thinking` is given.
 *
 * @example renderCalls('kimi-k2', [{ name: 'read_file', args: { path: 'a.py' } }]) // '<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0…'
 */
export function renderCalls(format: TextCallFormatName, calls: readonly RenderCall[], thinking?: string): string {
  const entry: TextCallFormat = TEXT_CALL_FORMATS[format];
  const before = thinking && entry.thinking ? entry.thinking(thinking) : thinking ? `${thinking}\n` : '';
  return before + entry.render(calls);
}
