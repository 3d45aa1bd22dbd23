// @vitest-environment node
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anthropicImageTokens, openAiImageTokens, pdfPageImageTokens } from '../../src/core';
import { decodeBase64, readImageInfo, readPdfInfo } from './media';
import { gifBytes, jpegBytes, pdfBytes, pngBytes, webpBytes } from './mediaFixtures';
import { startFakeApi, type FakeApi } from './server';
import { countTokens } from './tokens';

let fake: FakeApi;

beforeAll(async () => {
  fake = await startFakeApi({
    deltaDelayMs: 0,
    contextWindow: { 'claude-opus-5-5': 1_000_000, '*': 200_000 },
    textOnlyModels: { 'llama3.2:latest': 'ollama', 'facebook/opt-125m': 'vllm' },
    noPdfModels: ['claude-3-5-haiku-20241022'],
  });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

type ErrorBody = { type?: string; error: { type: string; message: string; param?: string | null; code?: string | null } };

async function postAnthropic(body: unknown) {
  const response = await fetch(`${fake.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ErrorBody & { usage?: { input_tokens: number } } };
}

async function postOpenAI(body: unknown) {
  const response = await fetch(`${fake.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proj-test-key-1234' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ErrorBody & { usage?: { prompt_tokens: number }; message?: string; object?: string } };
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const image = (bytes: Buffer, mediaType = 'image/png') => ({ type: 'image', source: { type: 'base64', media_type: mediaType, data: b64(bytes) } });
const pdf = (bytes: Buffer) => ({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b64(bytes) } });
const claude = (content: unknown[], model = 'claude-sonnet-4-6') => ({ model, max_tokens: 50, messages: [{ role: 'user', content }] });
const dataUrl = (bytes: Buffer, mediaType = 'image/png') => `data:${mediaType};base64,${b64(bytes)}`;
const imagePart = (url: string, detail?: string) => ({ type: 'image_url', image_url: detail ? { url, detail } : { url } });
const gpt = (content: unknown[], model = 'gpt-4o') => ({ model, messages: [{ role: 'user', content }] });

describe('the header reader', () => {
  it('reads the size of PNG, JPEG, GIF and WebP headers, and counts GIF frames', () => {
    expect(readImageInfo(pngBytes(640, 480))).toEqual({ mediaType: 'image/png', width: 640, height: 480, animated: false });
    expect(readImageInfo(jpegBytes(1920, 1080))).toEqual({ mediaType: 'image/jpeg', width: 1920, height: 1080, animated: false });
    expect(readImageInfo(gifBytes(300, 200))).toEqual({ mediaType: 'image/gif', width: 300, height: 200, animated: false });
    expect(readImageInfo(gifBytes(300, 200, 3))).toMatchObject({ animated: true });
    expect(readImageInfo(webpBytes(4000, 3000))).toEqual({ mediaType: 'image/webp', width: 4000, height: 3000, animated: false });
    expect(readImageInfo(Buffer.from('not an image'))).toBeNull();
    expect(readImageInfo(pngBytes(10, 10).subarray(0, 20))).toBeNull();
  });

  it('counts the pages of a PDF and reads its text; decodes only strict base64', () => {
    expect(readPdfInfo(pdfBytes(['First page', 'Second (page)']))).toEqual({ pages: 2, text: 'First page Second (page)' });
    expect(readPdfInfo(Buffer.from('%!PS-Adobe'))).toBeNull();
    expect(decodeBase64('aGk=')).toEqual(Buffer.from('hi'));
    expect(decodeBase64('aGk')).toBeNull();
    expect(decodeBase64('a Gk=')).toBeNull();
  });
});

describe('Anthropic image and document blocks', () => {
  it('accepts every supported format through the real SDK and reports the documented image tokens', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });
    const text = { role: 'user' as const, content: 'Describe it' };
    const bare = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [text] });
    const withImages = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(pngBytes(1920, 1080)) } },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: b64(jpegBytes(200, 200)) } },
            { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: b64(gifBytes(1000, 1000)) } },
            { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: b64(webpBytes(3840, 2160)) } },
            { type: 'text', text: 'Describe it' },
          ],
        },
      ],
    });
    expect(withImages.usage.input_tokens - bare.usage.input_tokens).toBe(1560 + 64 + 1296 + 1560);
  });

  it('counts images on the model tier: Claude 4.7 and later see more of a large image', async () => {
    const standard = await postAnthropic(claude([image(jpegBytes(3840, 2160), 'image/jpeg')]));
    const high = await postAnthropic(claude([image(jpegBytes(3840, 2160), 'image/jpeg')], 'claude-opus-4-7'));
    expect(high.body.usage!.input_tokens - standard.body.usage!.input_tokens).toBe(
      anthropicImageTokens(3840, 2160, 'claude-opus-4-7') - anthropicImageTokens(3840, 2160, 'claude-sonnet-4-6'),
    );
  });

  it('counts a PDF as its text plus one page image per page, and a text document as its text', async () => {
    const bare = await postAnthropic(claude([{ type: 'text', text: 'Summarize' }]));
    const doc = await postAnthropic(claude([pdf(pdfBytes(['Quarterly revenue grew', 'Costs fell'])), { type: 'text', text: 'Summarize' }]));
    expect(doc.status).toBe(200);
    expect(doc.body.usage!.input_tokens - bare.body.usage!.input_tokens).toBe(
      countTokens('Quarterly revenue grew Costs fell') + 2 * pdfPageImageTokens('anthropic', ''),
    );
    const plain = await postAnthropic(
      claude([
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Hello' } },
        { type: 'text', text: 'Hi' },
      ]),
    );
    expect(plain.status).toBe(200);
  });

  it('counts images inside tool results', async () => {
    const body = (result: unknown[]) => ({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      tools: [{ name: 'screenshot', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Take a screenshot' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
      ],
    });
    const textOnly = await postAnthropic(body([{ type: 'text', text: 'done' }]));
    const withImage = await postAnthropic(body([{ type: 'text', text: 'done' }, image(pngBytes(1000, 1000))]));
    expect(withImage.body.usage!.input_tokens - textOnly.body.usage!.input_tokens).toBe(1296);
  });

  it.each([
    [
      'an unsupported media type',
      [image(pngBytes(10, 10), 'image/bmp')],
      "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    ],
    [
      'bytes of another format',
      [image(jpegBytes(10, 10))],
      'messages.0.content.0.image.source.base64: The image was specified using the image/png media type, but the image appears to be a image/jpeg image',
    ],
    [
      'invalid base64',
      [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not base64!' } }],
      'messages.0.content.0.image.source.base64.data: Invalid base64 data',
    ],
    ['bytes that are no image', [image(Buffer.from('hello world'))], 'messages.0.content.0.image.source.base64.data: Could not process image'],
    [
      'a side over 8000 px',
      [{ type: 'text', text: 'see' }, image(pngBytes(8001, 10))],
      'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels',
    ],
    [
      'an unknown source type',
      [{ type: 'image', source: { type: 'blob', data: '' } }],
      "messages.0.content.0.image.source: Input tag 'blob' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'",
    ],
    [
      'a document that is not a PDF',
      [{ type: 'document', source: { type: 'base64', media_type: 'application/msword', data: 'aGk=' } }],
      "messages.0.content.0.document.source.base64.media_type: Input should be 'application/pdf'",
    ],
    ['a PDF that is not one', [pdf(Buffer.from('hello world'))], 'messages.0.content.0.document.source.base64.data: The PDF specified was not valid.'],
  ])('rejects %s', async (_, content, message) => {
    const { status, body } = await postAnthropic(claude(content));
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
  });

  it('rejects an image over 10 MB of base64, measured on the string as the API does', async () => {
    const data = b64(Buffer.concat([pngBytes(100, 100), Buffer.alloc(8 * 1024 * 1024)]));
    const { status, body } = await postAnthropic(claude([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }]));
    expect(status).toBe(400);
    expect(body.error.message).toBe(`messages.0.content.0.image.source.base64: image exceeds 10 MB maximum: ${data.length} bytes > 10485760 bytes`);
  });

  it('rejects images and documents outside user turns', async () => {
    const { body } = await postAnthropic({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'Draw' },
        { role: 'assistant', content: [image(pngBytes(10, 10))] },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(body.error.message).toBe("messages.1.content: 'image' blocks are not permitted within assistant turns.");
  });

  it('rejects more than 100 images and documents on a 200k-window model, and takes 600 on a 1M one', async () => {
    const many = Array.from({ length: 101 }, () => image(pngBytes(100, 100)));
    const small = await postAnthropic(claude(many));
    expect(small.body.error.message).toBe('too many images and documents: 101 + 0 > 100');
    const large = await postAnthropic(claude(many, 'claude-opus-5-5'));
    expect(large.status).toBe(200);
    const tooMany = await postAnthropic(claude([...many, ...many, ...many, ...many, ...many, ...many.slice(0, 96)], 'claude-opus-5-5'));
    expect(tooMany.body.error.message).toBe('too many images and documents: 601 + 0 > 600');
  });

  it('lowers the side limit to 2000 px once a request holds more than 20 images', async () => {
    const twenty = Array.from({ length: 20 }, () => image(pngBytes(3000, 100)));
    expect((await postAnthropic(claude(twenty))).status).toBe(200);
    const { body } = await postAnthropic(claude([...twenty, image(pngBytes(100, 100))]));
    expect(body.error.message).toBe(
      'messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels',
    );
  });

  it('rejects more than 100 PDF pages on a 200k-window model', async () => {
    const pages = Array.from({ length: 101 }, (_, i) => `Page ${i + 1}`);
    const { body } = await postAnthropic(claude([{ type: 'text', text: 'Read' }, pdf(pdfBytes(pages))]));
    expect(body.error.message).toBe('messages.0.content.1.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.');
    expect((await postAnthropic(claude([pdf(pdfBytes(pages))], 'claude-opus-5-5'))).status).toBe(200);
  });

  it('rejects PDFs on a model set up to refuse them', async () => {
    const { body } = await postAnthropic(claude([pdf(pdfBytes(['x']))], 'claude-3-5-haiku-20241022'));
    expect(body.error.message).toBe('claude-3-5-haiku-20241022 does not support PDFs.');
  });

  it('answers a request over 32 MB with 413 request_too_large', async () => {
    const padding = 'x'.repeat(33 * 1024 * 1024);
    const { status, body } = await postAnthropic(claude([{ type: 'text', text: padding }]));
    expect(status).toBe(413);
    expect(body).toMatchObject({ type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } });
  });
});

describe('OpenAI image_url and file parts', () => {
  it('accepts images through the real SDK and reports the documented tokens per detail and model', async () => {
    const client = new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const ask = async (model: string, parts: OpenAI.ChatCompletionContentPart[]) =>
      (await client.chat.completions.create({ model, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, ...parts] }] })).usage!
        .prompt_tokens;
    const png = dataUrl(pngBytes(1024, 1024));
    expect((await ask('gpt-4o', [{ type: 'image_url', image_url: { url: png, detail: 'high' } }])) - (await ask('gpt-4o', []))).toBe(765);
    expect((await ask('gpt-4o', [{ type: 'image_url', image_url: { url: png, detail: 'low' } }])) - (await ask('gpt-4o', []))).toBe(85);
    const big = dataUrl(jpegBytes(1800, 2400), 'image/jpeg');
    expect((await ask('gpt-5-mini', [{ type: 'image_url', image_url: { url: big } }])) - (await ask('gpt-5-mini', []))).toBe(
      openAiImageTokens(1800, 2400, 'auto', 'gpt-5-mini'),
    );
  });

  it('accepts a PDF file part and counts its text and page images', async () => {
    const bare = await postOpenAI(gpt([{ type: 'text', text: 'Summarize' }]));
    const withFile = await postOpenAI(
      gpt([
        { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${b64(pdfBytes(['Revenue grew']))}` } },
        { type: 'text', text: 'Summarize' },
      ]),
    );
    expect(withFile.status).toBe(200);
    expect(withFile.body.usage!.prompt_tokens - bare.body.usage!.prompt_tokens).toBe(countTokens('Revenue grew') + pdfPageImageTokens('openai', 'gpt-4o'));
  });

  it.each([
    [
      'an image_url given as a string',
      [{ type: 'image_url', image_url: 'data:image/png;base64,aGk=' }],
      "Invalid type for 'messages[0].content[0].image_url': expected an object, but got a string instead.",
      'messages[0].content[0].image_url',
      'invalid_type',
    ],
    [
      'a URL that is not data: or https:',
      [imagePart('aGVsbG8=')],
      "Invalid image URL: 'messages[0].content[0].image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.",
      'messages[0].content[0].image_url.url',
      'invalid_value',
    ],
    ['invalid base64', [imagePart('data:image/png;base64,@@@')], 'Invalid base64 image_url.', 'messages[0].content[0].image_url.url', null],
    [
      'a format it does not take',
      [imagePart(dataUrl(Buffer.from('BM not a png'), 'image/bmp'))],
      "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
      null,
      'invalid_image_format',
    ],
    [
      'an animated GIF',
      [imagePart(dataUrl(gifBytes(10, 10, 2), 'image/gif'))],
      "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
      null,
      'invalid_image_format',
    ],
    [
      'a cut-off image',
      [imagePart(dataUrl(pngBytes(10, 10).subarray(0, 12)))],
      'You uploaded an unsupported image. Please make sure your image is valid.',
      null,
      'invalid_image',
    ],
    [
      'an unknown detail',
      [imagePart(dataUrl(pngBytes(10, 10)), 'ultra')],
      "Invalid value: 'ultra'. Supported values are: 'auto', 'low', 'high', and 'original'.",
      'messages[0].content[0].image_url.detail',
      'invalid_value',
    ],
    [
      'a file part that is not a PDF',
      [{ type: 'file', file: { filename: 'a.txt', file_data: 'data:text/plain;base64,aGk=' } }],
      "Invalid file data: 'messages[0].content[0].file.file_data'. Only PDF files (application/pdf) are supported, but got 'text/plain'.",
      'messages[0].content[0].file.file_data',
      'invalid_value',
    ],
  ])('rejects %s', async (_, content, message, param, code) => {
    const { status, body } = await postOpenAI(gpt(content));
    expect(status).toBe(400);
    expect(body.error).toEqual({ message, type: 'invalid_request_error', param, code });
  });

  it('rejects images on system and assistant messages', async () => {
    const { body } = await postOpenAI({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'Draw a cat' },
        { role: 'assistant', content: [imagePart('https://example.com/cat.png')] },
        { role: 'user', content: 'Describe this image' },
      ],
    });
    expect(body.error).toEqual({
      message:
        "Invalid 'messages[1]'. Image URLs are only allowed for messages with role 'user', but this message with role 'assistant' contains an image URL.",
      type: 'invalid_request_error',
      param: 'messages[1]',
      code: null,
    });
    const system = await postOpenAI({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: [imagePart('https://example.com/cat.png')] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(system.body.error.message).toContain("but this message with role 'system' contains an image URL.");
  });

  it('rejects more than 1500 images in one request', async () => {
    const part = imagePart(dataUrl(pngBytes(8, 8)), 'low');
    const { body } = await postOpenAI(gpt(Array.from({ length: 1501 }, () => part)));
    expect(body.error.message).toBe('Too many images in request. Max is 1500.');
  });

  describe('a model that refuses images', () => {
    it('OpenAI: a text-only model such as gpt-3.5-turbo', async () => {
      const { status, body } = await postOpenAI(gpt([{ type: 'text', text: 'What is this?' }, imagePart(dataUrl(pngBytes(10, 10)))], 'gpt-3.5-turbo'));
      expect(status).toBe(400);
      expect(body.error).toEqual({
        message: 'Invalid content type. image_url is only supported by certain models.',
        type: 'invalid_request_error',
        param: 'messages.[0].content.[1].type',
        code: null,
      });
    });

    it('Ollama: a model without a vision encoder', async () => {
      const { status, body } = await postOpenAI(gpt([imagePart(dataUrl(pngBytes(10, 10)))], 'llama3.2:latest'));
      expect(status).toBe(400);
      expect(body.error).toEqual({ message: 'this model does not support image input', type: 'invalid_request_error', param: null, code: null });
    });

    it('vLLM: a text model, in vLLM’s own error shape, which the OpenAI SDK still reads', async () => {
      const { status, body } = await postOpenAI(gpt([imagePart(dataUrl(pngBytes(10, 10)))], 'facebook/opt-125m'));
      expect(status).toBe(400);
      expect(body).toEqual({ object: 'error', message: 'facebook/opt-125m is not a multimodal model None', type: 'BadRequestError', param: null, code: 400 });
      const client = new OpenAI({ apiKey: 'sk-proj-test-key-1234', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const error = await client.chat.completions
        .create({ model: 'facebook/opt-125m', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(pngBytes(10, 10)) } }] }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as Error).message).toContain('is not a multimodal model');
    });

    it('the same models take text', async () => {
      expect((await postOpenAI(gpt([{ type: 'text', text: 'Hello' }], 'llama3.2:latest'))).status).toBe(200);
    });
  });
});
