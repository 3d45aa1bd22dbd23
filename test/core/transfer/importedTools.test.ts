import { describe, expect, it } from 'vitest';
import { anthropicRequestBody } from '../../../src/providers/anthropic';
import {
  branchMessages,
  buildTree,
  chars4,
  planContext,
  toAnthropicWire,
  toOpenAIWire,
  type ConversationRecords,
  type StoredMessage,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { buildHistory } from '../../../src/store/history';
import { readFixture } from './fixtures';
import { importEvery } from './importAll';

function imported(name: string): ConversationRecords[] {
  return importEvery(readFixture(name), { importedAt: 1_767_225_600_000 }).conversations;
}

const chatGpt = imported('chatgpt-tools.json');
const claude = imported('claude-tools.json');
const byTitle = (list: ConversationRecords[], title: string) => list.find((c) => c.conversation.title === title)!;
/** The branch shown, one line a message: role, then each block as text, `call name(input)` or `result[: error] content`. */
function shown(entry: ConversationRecords): string[] {
  return branchMessages(buildTree(entry.messages), entry.conversation.activeLeafId).map(
    (m) =>
      `${m.role}: ` +
      m.content
        .map((b) =>
          b.type === 'text'
            ? b.text
            : b.type === 'tool_use'
              ? `call ${b.name}(${JSON.stringify(b.input)})`
              : b.type === 'tool_result'
                ? `result${b.is_error ? ' (error)' : ''}: ${b.content}`
                : b.type,
        )
        .join(' | '),
  );
}

describe('ChatGPT tool output as tool exchanges', () => {
  it('Code Interpreter: the code is a python call, a chart becomes the image placeholder, the answer keeps its math', () => {
    expect(shown(byTitle(chatGpt, 'Plotting a sine wave'))).toEqual([
      'user: Plot sin(x) from 0 to 2π and tell me the area under one hump.',
      `assistant: call python(${JSON.stringify({ code: "import numpy as np\nimport matplotlib.pyplot as plt\nx = np.linspace(0, 2*np.pi, 400)\nplt.plot(x, np.sin(x))\nplt.title('sin(x)')\nplt.show()" })})`,
      'user: result: [Image — not included in the export file]',
      'assistant: Here is the plot. The area under one hump is\n\\[\n\\int_0^{\\pi} \\sin x \\, dx = 2\n\\]\nso each hump encloses \\(2\\) square units.',
    ]);
  });

  it('a run that raised and a system error are error results', () => {
    const lines = shown(byTitle(chatGpt, 'Dividing by zero'));
    expect(lines[1]).toBe('assistant: call python({"code":"1/0"})');
    expect(lines[2]).toMatch(/^user: result \(error\): -+\nZeroDivisionError .*division by zero$/s);
    expect(lines.slice(3)).toEqual([
      'assistant: call python({"code":"import time\\ntime.sleep(120)"})',
      'user: result (error): tool_error: Code execution state reset.',
      'assistant: It raises `ZeroDivisionError: division by zero`.',
    ]);
  });

  it('browsing: search and click are calls, results and quotes readable, citation marks gone', () => {
    expect(shown(byTitle(chatGpt, 'Latest Python release'))).toEqual([
      'user: What is the latest Python release?',
      'assistant: call browser({"input":"search(\\"latest Python release\\")"})',
      "user: result: # [0] Python Release Python 3.13.1 | Python.org (www.python.org)\nPython 3.13.1 is the first maintenance release of 3.13.\n# [1] What's New In Python 3.13 (docs.python.org)\nThis article explains the new features in Python 3.13.",
      'assistant: call browser({"input":"mclick([\\"0\\", \\"1\\"])"})',
      'user: result: Python Release Python 3.13.1 — https://www.python.org/downloads/release/python-3131/\n\nPython 3.13.1 is the first maintenance release of 3.13, containing around 400 bugfixes.',
      // A second quote after the first answers a call the export does not hold: one is added, with no arguments.
      'assistant: call browser({})',
      "user: result: What's New In Python 3.13 — https://docs.python.org/3/whatsnew/3.13.html\n\nPython 3.13 has an experimental free-threaded build mode.",
      'assistant: The latest release is Python 3.13.1, a maintenance release with about 400 fixes.',
    ]);
    // The added call is the model's, like the calls around it.
    const added = byTitle(chatGpt, 'Latest Python release').messages.find((m) => m.id.endsWith('#call'));
    expect(added).toMatchObject({ role: 'assistant', model: 'gpt-4o', provider: 'openai' });
  });

  it('web.run: a dotted tool name becomes one the APIs accept, citation spans go and entity spans keep their name', () => {
    expect(shown(byTitle(chatGpt, 'Who designed the Eiffel Tower'))).toEqual([
      'user: Who designed the Eiffel Tower?',
      'assistant: call web_run({"search_query":[{"q":"Eiffel Tower designer"}],"response_length":"short"})',
      'user: result: [Tool output — not included in the export file]',
      'assistant: The tower was designed by the engineering firm of Gustave Eiffel, with engineers Maurice Koechlin and Émile Nouguier. It opened in 1889.',
    ]);
  });

  it('DALL·E and canvas: the arguments ChatGPT sent, the image as a placeholder, the hidden instructions left out', () => {
    expect(shown(byTitle(chatGpt, 'A robin and a poem'))).toEqual([
      'user: Draw a robin, then write a short poem about it in a canvas.',
      'assistant: call dalle_text2im({"prompt":"A European robin perched on a frosty branch, watercolor style","size":"1024x1024"})',
      'user: result: [Image — not included in the export file]',
      `assistant: call canmore_create_textdoc(${JSON.stringify({ name: 'robin_poem', type: 'document', content: "# The Robin\n\nA flash of red on winter's wire,\na small and stubborn coal of fire." })})`,
      "user: result: Successfully created text document 'Robin Poem' which will be referenced in all future messages with the unique identifier textdoc_id: '67a0f00dd1c48191'",
      'assistant: Here is your robin, and the poem is in the canvas.',
    ]);
  });

  it('a call whose output the export lacks gets a placeholder result, and the branch shown ends there', () => {
    const entry = byTitle(chatGpt, 'An unfinished analysis');
    expect(shown(entry).slice(1)).toEqual([
      `assistant: call python(${JSON.stringify({ code: "import pandas as pd\nlen(pd.read_csv('rows.csv'))" })})`,
      'user: result: [Tool output — not included in the export file]',
    ]);
    expect(entry.conversation.messageCount).toBe(3);
  });
});

describe('Claude tool use as tool exchanges', () => {
  it('splits an answer at its tool calls and results, keeps an error, answers a call left without result and gives a lone result its call', () => {
    const [entry] = claude;
    expect(shown(entry!)).toEqual([
      'user: How fast is light, and write me a one-page summary?',
      'assistant: Let me check. | call web_search({"query":"speed of light in vacuum m/s"})',
      'user: result: Speed of light - Wikipedia — https://en.wikipedia.org/wiki/Speed_of_light\nThe speed of light in vacuum is exactly 299,792,458 metres per second.',
      `assistant: Light travels at $c = 299\\,792\\,458$ m/s in vacuum. | call artifacts(${JSON.stringify({ id: 'light-summary', type: 'text/markdown', title: 'The speed of light', command: 'create', content: '# The speed of light\n\nExactly 299,792,458 m/s.', version_uuid: '0f6e5d4c-0001' })})`,
      'user: result: OK',
      'assistant: The summary is in the artifact.',
      'user: Now compute 2^10 with the analysis tool.',
      'assistant: call repl({"code":"console.log(2 ** 10)"})',
      'user: result (error): Error: analysis tool timed out',
      'assistant: call repl({"code":"console.log(1024)"})',
      'user: result: [Tool output — not included in the export file]',
      'user: And the result?',
      'assistant: call web_search({})',
      'user: result: Powers of two — https://en.wikipedia.org/wiki/Power_of_two\n2^10 = 1024',
      'assistant: It is $2^{10} = 1024$.',
    ]);
    // The last part of a split answer keeps its id, so the conversation's current leaf and the next message still find it.
    expect(entry!.conversation.activeLeafId).toBe('claude:5e1d2c3b-0001-4a5b-8c7d-000000000001/a3');
    expect(entry!.messages.map((m) => m.seq)).toEqual(entry!.messages.map((_, i) => i));
  });
});

describe('Claude artifacts written into the text (older exports)', () => {
  it('turns <antArtifact> into an artifacts call and <antThinking> into thinking, the text around them kept', () => {
    const entry = byTitle(claude, 'A prime test (2024 export)');
    expect(shown(entry)).toEqual([
      'user: Write a prime test in Python.',
      `assistant: thinking | Here is a function that checks whether a number is prime: | call artifacts(${JSON.stringify({
        identifier: 'is-prime',
        type: 'application/vnd.ant.code',
        language: 'python',
        title: 'is_prime in Python',
        content: 'def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))',
      })})`,
      'user: result: [Tool output — not included in the export file]',
      'assistant: It tries divisors up to $\\sqrt{n}$.',
    ]);
    expect(entry.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'A reusable function is worth an artifact.' });
  });
});

describe('imported tool exchanges', () => {
  const all = [...chatGpt, ...claude];

  it('leave none of the export’s internal markup in any message', () => {
    const text = JSON.stringify(all.flatMap((c) => c.messages.map((m) => m.content)));
    expect(text).not.toMatch(/<<ImageDisplayed>>|【|†|[\ue200-\ue204]|<\/?ant(Artifact|Thinking)/);
  });

  it('use tool names and call ids both APIs accept, and pair every call with exactly one result', () => {
    for (const { messages } of all) {
      const calls = messages.flatMap((m) => m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use'));
      const results = messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
      for (const call of calls) {
        expect(call.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(call.id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
      }
      expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
      expect(results.map((r) => r.tool_use_id).sort()).toEqual(calls.map((c) => c.id).sort());
    }
  });

  it('give the same messages and ids when the same file is imported again', () => {
    expect(imported('chatgpt-tools.json')).toEqual(chatGpt);
    expect(imported('claude-tools.json')).toEqual(claude);
  });

  /** Every branch of every conversation, continued with a new question. */
  const continued = all.flatMap((entry) => {
    const tree = buildTree(entry.messages);
    const leaves = entry.messages.filter((m) => !entry.messages.some((c) => c.parentId === m.id));
    return leaves.map((leaf): [string, StoredMessage[]] => {
      const branch = branchMessages(tree, leaf.id);
      const next: StoredMessage = {
        ...branch[0]!,
        id: 'next',
        seq: entry.messages.length,
        parentId: leaf.id,
        role: 'user',
        content: [{ type: 'text', text: 'Go on.' }],
      };
      return [`${entry.conversation.title} → ${leaf.id.split('/')[1]}`, [...branch, next]];
    });
  });

  it.each(continued)('continue as a valid request for both APIs: %s', (_name, messages) => {
    for (const shape of ['anthropic', 'openai'] as const) {
      const wire = (shape === 'anthropic' ? toAnthropicWire(messages) : toOpenAIWire(messages)).map((item) => item.message);
      expect(validateRequest(wire, { provider: shape }).violations).toEqual([]);
      const plan = planContext({
        history: buildHistory(messages, shape, ''),
        policy: { strategy: 'auto' },
        model: { contextWindow: 200_000, maxOutputTokens: 8192 },
        counter: chars4,
      });
      expect(plan.evicted).toEqual([]);
    }
    // With no tool offered, Anthropic is sent the tools the history calls, under names it accepts.
    const body = anthropicRequestBody(
      { model: 'claude-sonnet-4-5', messages: toAnthropicWire(messages).map((i) => i.message), maxTokens: 1024 },
      false,
    ) as unknown as {
      tools?: { name: string }[];
      tool_choice?: unknown;
    };
    expect(body.tools?.every((t) => /^[A-Za-z0-9_-]{1,64}$/.test(t.name))).toBe(true);
    expect(body.tool_choice).toEqual({ type: 'none' });
  });
});
