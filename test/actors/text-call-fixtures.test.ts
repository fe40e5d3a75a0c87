import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoverTextCalls } from '../../actors/model/text-calls/recover.js';
import { toolList } from '../../actors/model/text-calls/tool-list.js';
import { repoRoot } from '../helpers/cli.js';

// Every example of the census fixtures (test/fixtures/toolcall-formats/, cut from the parsers' own tests and the
// families' templates) and what rein makes of it: the calls, the id the model wrote, the prose left, or why not.

const dir = join(repoRoot, 'test', 'fixtures', 'toolcall-formats');

/** The examples, keyed `<file number>/<id>`. */
const examples = new Map<string, string>();
for (const file of readdirSync(dir).filter((name) => name.endsWith('.txt'))) {
  const text = readFileSync(join(dir, file), 'utf8');
  for (const match of text.matchAll(/^===== BEGIN (\S+)[^\n]*\n([\s\S]*?)\n===== END$/gm)) examples.set(`${file.slice(0, 2)}/${match[1]}`, match[2]!);
}

const untyped = [
  'get_weather',
  'final_answer',
  'search',
  'get_db_config',
  'get_current_weather',
  '获取天气',
  'get_current_time',
  'search_web',
  'get_favorite_tourist_spot',
  'search_hotels',
  'send_message',
  'process_html',
  'add',
  'multiply',
  'name',
  'get_time',
  'test',
  'register_user',
  'do_something_cool',
  'process_data',
  'complex_function',
  'fn1',
  'fn2',
  'brave_search',
  'generate_file',
];
const tools = toolList([
  ...untyped.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } })),
  {
    type: 'function',
    function: {
      name: 'calculate_area',
      parameters: { type: 'object', properties: { shape: { type: 'string' }, dimensions: { type: 'object' }, precision: { type: 'integer' } } },
    },
  },
]);

type Call = { name: string; arguments: unknown; id?: string };
/** What an example must give: its calls (and the prose left, when it matters), or nothing run and why. */
type Expected = { calls: Call[]; content?: string | null } | { none: string; notRun?: Array<{ name: string; why: string }> };

const weather = (args: Record<string, unknown>, id?: string): Call => ({ name: 'get_weather', arguments: args, ...(id ? { id } : {}) });
const dallas = { name: 'get_current_weather', arguments: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' } };
const register = {
  name: 'register_user',
  arguments: { name: 'John Doe', age: 37, address: { city: 'San Francisco', state: 'CA' }, role: null, passed_test: true, aliases: ['John', 'Johnny'] },
};

const EXPECTED: Record<string, Expected> = {
  '01/single_newlines': { calls: [{ name: 'final_answer', arguments: { trigger: true } }], content: null },
  '01/content_then_call': { calls: [weather({ city: 'NYC' })], content: 'Sure, let me check the weather.' },
  '01/parallel_adjacent': {
    calls: [
      { name: 'search', arguments: { q: 'cats' } },
      { name: 'search', arguments: { q: 'dogs' } },
    ],
  },
  '01/args_as_json_string': { calls: [{ name: 'get_db_config', arguments: { param: 'max_connections' } }] },
  '01/unclosed_until_eos': { calls: [{ name: 'final_answer', arguments: { trigger: true } }] },
  '01/ernie_after_think': { none: 'the docstring holds `def`, a placeholder, where the JSON call would be' },
  '01/longcat_variant_tag': { calls: [weather({ city: 'NYC' })] },
  '02/single': { calls: [dallas], content: null },
  '02/content_before': { calls: [dallas], content: 'Sure! Let me check the weather for you.' },
  '02/multiline_json_object_param': {
    calls: [{ name: 'calculate_area', arguments: { shape: 'rectangle', dimensions: { width: 10, height: 20 }, precision: 2 } }],
  },
  '02/parallel': { calls: [dallas, { name: 'get_current_weather', arguments: { city: 'Orlando', state: 'FL', unit: 'fahrenheit' } }] },
  '02/missing_outer_tool_call_tags': { calls: [{ name: 'get_current_weather', arguments: { city: 'Dallas', state: 'TX' } }] },
  '02/unicode_names_and_values': { calls: [{ name: '获取天气', arguments: { 城市: '北京', message: 'Hello! 你好! 🌟 مرحبا' } }] },
  '02/qwen3.5_no_newlines': { calls: [weather({ location: 'San Francisco', days: 3 })] },
  '02/nemotron3_nano_after_think': { calls: [weather({ city: 'Paris' })], content: 'I should check the weather...</think>' },
  '02/seed_oss_wrapper': { calls: [weather({ city: 'Paris' })], content: '<seed:think>...</seed:think>' },
  '03/glm45_single': { calls: [dallas] },
  '03/glm45_think_then_text_then_call': {
    calls: [weather({ city: 'Beijing', date: '2025-08-01' })],
    content: '<think>I want to get the weather.</think>\n\nI will help you get the weather.',
  },
  '03/glm45_no_args': { calls: [{ name: 'get_current_time', arguments: {} }] },
  '03/glm45_chinese_value': { calls: [weather({ city: '北京', date: '2024-06-27' })] },
  '03/glm47_parallel_no_newlines': { calls: [weather({ city: '北京', date: '2024-06-27' }), weather({ city: '上海', date: '2024-06-27' })] },
  '04/minimax_m2_content_then_call': { calls: [weather({ city: 'Seattle' })], content: 'Let me check.' },
  '04/minimax_m2_parallel': {
    calls: [
      { name: 'search_web', arguments: { query: 'OpenAI' } },
      { name: 'search_web', arguments: { query: 'Gemini' } },
    ],
  },
  '04/deepseek_v32_dsml': { calls: [{ name: 'get_favorite_tourist_spot', arguments: { city: 'San Francisco' } }], content: null },
  '04/deepseek_v32_simple_json_body': { calls: [{ name: 'get_favorite_tourist_spot', arguments: { city: 'San Francisco' } }], content: null },
  '04/step3_steptml': { calls: [weather({ city: 'Paris' })], content: null },
  '05/v3_r1_single': { calls: [weather({ city: 'Tokyo', unit: 'celsius' })], content: null },
  '05/v3_r1_parallel': {
    calls: [weather({ city: 'Tokyo', unit: 'celsius' }), { name: 'search_hotels', arguments: { location: 'Tokyo', check_in: '2025-01-15' } }],
    content: null,
  },
  '05/v3_escaped_strings': { calls: [{ name: 'send_message', arguments: { text: 'He said "hello"', path: 'C:\\Users\\file', newline: 'line1\nline2' } }] },
  '05/v3_malformed_missing_per_call_tokens': { calls: [weather({ city: 'Tokyo' })] },
  '05/v31_parallel': {
    calls: [
      { name: 'get_current_weather', arguments: { location: 'Tokyo' } },
      { name: 'get_current_weather', arguments: { location: 'Paris' } },
    ],
    content: null,
  },
  '06/single_with_content': { calls: [weather({ city: 'Beijing' }, 'functions.get_weather:0')], content: "I'll check." },
  '06/parallel': { calls: [weather({ city: 'Beijing' }, 'functions.get_weather:0'), weather({ city: 'Shanghai' }, 'functions.get_weather:1')] },
  '06/angle_brackets_in_json': { calls: [{ name: 'process_html', arguments: { html: '<div>content</div>' }, id: 'functions.process_html:0' }] },
  '06/no_functions_prefix': { calls: [weather({ city: 'Tokyo' }, 'get_weather:0')] },
  // A marked call to a name that is no tool is still a call: the tool runner answers it with the tools there are.
  '06/bare_counter_id': { calls: [{ name: '0', arguments: { city: 'Tokyo', unit: 'celsius' } }] },
  '06/k2.5_malformed_ids_seen_in_wild': {
    calls: [{ name: 'functionsexec5', arguments: { command: 'ls -la ~/.claude 2>/dev/null || echo "Not found in ~/.claude"' } }],
  },
  '07/doc_example': { calls: [weather({ location: 'San Francisco' })] },
  '07/recipient_in_role_no_constrain_space': { calls: [{ name: 'generate_file', arguments: { template: 'basic_html', path: 'index.html' } }] },
  '07/with_hallucinated_tool_result_after_call': { calls: [weather({ location: 'San Francisco' })], content: null },
  '07/recipient_before_channel': { none: 'a header with no message after it' },
  '08/pre_v11_array': { calls: [{ name: 'add', arguments: { a: 3.5, b: 4 } }], content: null },
  '08/pre_v11_space_content_before': { calls: [{ name: 'add', arguments: { a: 1, b: 2 } }], content: 'Hello' },
  '08/pre_v11_arguments_before_name': { calls: [{ name: 'get_current_weather', arguments: { city: 'San Francisco', state: 'CA', unit: 'celsius' } }] },
  '08/pre_v11_trailing_text': { calls: [dallas], content: 'extra trailing data' },
  '08/v7_template_history_form_with_id': { calls: [weather({ city: 'Paris' }, 'abcDEF123')] },
  '08/v11_with_call_id': { calls: [{ name: 'name', arguments: { arg1: 'value1', arg2: 'value2' }, id: 'call_id' }] },
  '08/v13_args_token': { calls: [weather({ location: 'NYC' }), { name: 'get_time', arguments: { timezone: 'EST' } }], content: null },
  '08/v13_escaped_quote': { calls: [{ name: 'search', arguments: { query: 'say "hello"' } }] },
  '08/v13_after_think': { calls: [{ name: 'test', arguments: {} }], content: 'let me think[/THINK]' },
  '08/v11_decoded_without_ARGS': {
    calls: [
      { name: 'add', arguments: { a: 3.5, b: 4 } },
      { name: 'multiply', arguments: { a: 3, b: 6 } },
    ],
  },
  '09/llama31_template_history_shape': { calls: [weather({ city: 'Paris' })], content: null },
  '09/python_tag_prefixed': { calls: [weather({ city: 'Paris' })], content: null },
  '09/semicolon_parallel': { calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { tz: 'CET' } }], content: null },
  '09/builtin_tool': { calls: [{ name: 'brave_search', arguments: { query: 'weather in Paris' } }] },
  '10/vllm_doc_example': { calls: [weather({ city: 'San Francisco', metric: 'celsius' }), weather({ city: 'Seattle', metric: 'celsius' })] },
  // The Llama 4 template's own example: calculate_route is no tool here, so the list is code, not calls, and the model is told.
  '10/llama4_template_example': { none: 'calculate_route is not offered', notRun: [{ name: 'get_weather', why: 'mixed' }] },
  '10/olmo3_more_types': { calls: [register], content: null },
  '10/olmo3_json_literals': { calls: [register] },
  '10/olmo3_escaped_quotes': { calls: [weather({ city: "Martha's Vineyard", metric: '"cool units"' })] },
  '10/olmo3_parallel_newline': {
    calls: [weather({ city: 'San Francisco', metric: 'celsius' }), weather({}), { name: 'do_something_cool', arguments: { steps: [] } }],
    content: null,
  },
  '10/llama4_python_start_wrapper': { calls: [weather({ city: 'Paris' })], content: null },
  '10/lfm2_single_with_content': { calls: [weather({ location: 'Paris' })], content: "I'll check the weather." },
  '10/lfm2_parallel_repeated_wrappers': {
    calls: [weather({ location: 'Paris' }), weather({ location: 'London' })],
    content: 'Getting weather for both cities.',
  },
  '10/lfm2_python_literals': { calls: [{ name: 'process_data', arguments: { items: ['item1', 'item2'], config: { enabled: true, threshold: 0.95 } } }] },
  '11/nemotron_toolcall': { calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { tz: 'CET' } }], content: null },
  '11/granite3_tool_call_token': { calls: [weather({ city: 'Paris' })], content: null },
  '11/jamba_or_hunyuan_tool_calls': { calls: [weather({ city: 'Paris' })], content: null },
  '11/minimax_m1_json_lines': { calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { tz: 'CET' } }], content: null },
  '11/lfm2_json_variant': { calls: [{ name: 'get_current_time', arguments: { location: 'Paris' } }], content: null },
  '11/apertus_name_as_key_nested': { calls: [{ name: 'complex_function', arguments: { nested: { inner: 'value' }, list: ['a', 'b'] } }] },
  '11/apertus_parallel': { calls: [weather({ location: 'London' }), { name: 'get_time', arguments: { location: 'London' } }] },
  '11/phi4_mini_functools': { calls: [weather({ city: 'Paris' })], content: null },
  '11/firefunction_v2': { calls: [weather({ city: 'Paris' })], content: null },
  '12/command_a_r7b_parallel': {
    calls: [weather({ city: 'Paris' }, '0'), { name: 'get_time', arguments: {}, id: '1' }],
    content: 'plan<|END_THINKING|>',
  },
  '12/command_r_plus_legacy': { calls: [weather({ city: 'Paris' })], content: null },
  '13/functionary_v31': { calls: [weather({ city: 'Paris' })], content: null },
  '13/functionary_v32': {
    calls: [
      { name: 'fn1', arguments: { arg1: 1 } },
      { name: 'fn2', arguments: { arg1: 1 } },
    ],
    content: ">>>all\nlet's call functions",
  },
  '13/internlm2_5': { calls: [weather({ city: 'Paris' })], content: null },
  '13/gigachat3': { calls: [weather({ city: 'Paris' })], content: null },
  '13/functiongemma': { calls: [weather({ location: 'London' })], content: null },
  '13/gemma4': { calls: [weather({ location: 'Paris', units: 'metric' })], content: null },
  '13/llamacpp_generic_single': { calls: [weather({ city: 'Paris' })], content: null },
  '13/llamacpp_generic_response': { none: 'an answer, not a call' },
  '13/granite_20b_fc': { calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { tz: 'CET' } }], content: null },
  '13/xlam_bare_array': { calls: [weather({ city: 'Paris' })], content: null },
};

describe('the census fixtures: each example as its family writes it', () => {
  it('has an expectation for every example and no other', () => {
    expect([...examples.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(examples.size).toBe(86);
  });

  it.each([...examples.keys()])('%s', (key) => {
    const expected = EXPECTED[key]!;
    const recovery = recoverTextCalls(examples.get(key)!, tools);
    const calls = (recovery?.calls ?? []).map((call) => ({ name: call.name, arguments: call.arguments, ...(call.id ? { id: call.id } : {}) }));
    if ('none' in expected) {
      expect(calls).toEqual([]);
      expect((recovery?.notRun ?? []).map(({ name, why }) => ({ name, why }))).toEqual(expected.notRun ?? []);
      return;
    }
    expect(calls).toEqual(expected.calls);
    if (expected.content !== undefined) expect(recovery!.content).toBe(expected.content);
    expect(recovery!.notRun).toEqual([]);
  });

  it('the Llama 4 example runs both calls once both tools are offered', () => {
    const both = toolList(['get_weather', 'calculate_route'].map((name) => ({ type: 'function', function: { name, parameters: {} } })));
    expect(recoverTextCalls(examples.get('10/llama4_template_example')!, both)?.calls.map((call) => call.name)).toEqual(['get_weather', 'calculate_route']);
  });
});
