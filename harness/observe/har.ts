/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the entries `run --record` writes, and a streaming reader
 * of any HAR file for `judge`. Written entries are redacted like every other output of the suite (URLs, headers,
 * bodies). Bodies are kept whole up to run.maxResponseBytes, decoded (HAR's content.text is the decoded body; the
 * Content-Encoding header stays as sent). Extra fields, as HAR allows, start with an underscore: `_api`,
 * `_operationId`, `_error` (no answer: the response's status is 0), `_invalidUtf8` (the body was not UTF-8; its text
 * holds replacement characters), `_truncated` (a body cut at the cap).
 */
import { createReadStream } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import type { TappedExchange } from '../transport/http.js';
import { redactHeaders, redactText } from '../transport/redact.js';
import type { Api } from '../types.js';
import type { ObservedExchange } from './passive.js';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text?: string; params?: unknown[] };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number; blocked?: number; dns?: number; connect?: number; ssl?: number };
  _api?: Api;
  _operationId?: string;
  _invalidUtf8?: boolean;
  _truncated?: boolean;
}

const headerList = (h: Record<string, string>): HarHeader[] => Object.entries(h).map(([name, value]) => ({ name, value }));

function queryOf(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** A text cut at `max` bytes (UTF-8), and whether it was. */
function capped(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length * 3 <= max || Buffer.byteLength(text) <= max) return { text, truncated: false };
  return { text: Buffer.from(text).subarray(0, max).toString('utf8'), truncated: true };
}

/** The HAR entry of an exchange the suite sent, redacted (the tap of harness/transport/http.ts gives it whole). */
export function harEntryOf(x: TappedExchange, maxBodyBytes: number): HarEntry {
  const r = x.record;
  const reqType = r.request.headers['content-type'] ?? '';
  let reqText: string | undefined;
  if (typeof x.requestBody === 'string') reqText = redactText(capped(x.requestBody, maxBodyBytes).text);
  else if (x.requestBody !== undefined) reqText = r.request.body; // a binary body: its description (size and digest)
  const resHeaders = x.responseHeaders !== undefined ? redactHeaders(x.responseHeaders) : {};
  const body = x.responseText !== undefined ? capped(x.responseText, maxBodyBytes) : undefined;
  const text = body !== undefined ? redactText(body.text) : undefined;
  return {
    startedDateTime: r.startedAt,
    time: r.durationMs,
    request: {
      method: r.request.method,
      url: r.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(r.request.headers),
      queryString: queryOf(r.request.url),
      ...(reqText !== undefined ? { postData: { mimeType: reqType, text: reqText } } : {}),
      headersSize: -1,
      bodySize: typeof x.requestBody === 'string' ? Buffer.byteLength(x.requestBody) : (x.requestBody?.byteLength ?? 0),
    },
    response:
      r.response === undefined
        ? { status: 0, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: 0, mimeType: '' }, redirectURL: '', headersSize: -1, bodySize: -1, _error: r.transportError ?? 'no response' }
        : {
            status: r.response.status,
            statusText: STATUS_CODES[r.response.status] ?? '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: headerList(resHeaders),
            content: { size: x.responseText !== undefined ? Buffer.byteLength(x.responseText) : 0, mimeType: resHeaders['content-type'] ?? '', ...(text !== undefined ? { text } : {}) },
            redirectURL: resHeaders.location ?? '',
            headersSize: -1,
            bodySize: -1,
          },
    cache: {},
    timings: { send: 0, wait: r.durationMs, receive: 0 },
    _api: r.api,
    ...(r.operationId !== undefined ? { _operationId: r.operationId } : {}),
    ...(x.invalidUtf8 === true ? { _invalidUtf8: true } : {}),
    ...(body?.truncated === true ? { _truncated: true } : {}),
  };
}

export const harCreator = (version: string) => ({ name: 'canton-conformance', version });

/** Headers of a HAR entry as one record: lower-case names, repeated ones joined with ", ". */
function headerRecord(list: readonly HarHeader[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    if (typeof h?.name !== 'string') continue;
    const name = h.name.toLowerCase();
    // HTTP/2 pseudo-headers (:status, :path) some browsers export are not headers
    if (name.startsWith(':')) continue;
    const value = String(h.value ?? '');
    out[name] = out[name] !== undefined ? `${out[name]}, ${value}` : value;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** the reason counted for a response whose body the capture left out */
export const BODY_LEFT_OUT = 'the capture left the body out (no content.text: a HAR saved without content, Playwright content "omit" or "attach", a size-limited or sanitized capture)';

/**
 * Why an entry is not valid HAR where the judge reads it (undefined: it is): the request and response objects, their
 * header lists as lists of {name, value}.
 */
function invalidEntry(e: unknown): string | undefined {
  if (!isObject(e)) return 'an entry that is not an object';
  const req = e.request;
  if (!isObject(req)) return 'an entry without a request object';
  if (typeof req.url !== 'string' || typeof req.method !== 'string') return 'an entry without a request URL or method';
  if (req.headers !== undefined && !Array.isArray(req.headers)) return 'an entry whose request.headers is not a list of {name, value}';
  if (req.postData !== undefined && !isObject(req.postData)) return 'an entry whose request.postData is not an object';
  const res = e.response;
  if (res === undefined) return undefined;
  if (!isObject(res)) return 'an entry whose response is not an object';
  if (res.headers !== undefined && !Array.isArray(res.headers)) return 'an entry whose response.headers is not a list of {name, value}';
  if (res.content !== undefined && !isObject(res.content)) return 'an entry whose response.content is not an object';
  return undefined;
}

/**
 * Whether the capture left a response body out: no content.text where the body was not empty or its size is not
 * known (a HAR saved without content, Playwright's content "omit"; "attach" keeps it in a file of its own, `_file`),
 * or a comment on the content (what sanitizing and size-limiting tools leave), or the recorder's own `_truncated`.
 */
function bodyLeftOut(content: Record<string, unknown> | undefined, bodySize: unknown): boolean {
  if (content === undefined) return true;
  if (content._file !== undefined) return true;
  if (typeof content.comment === 'string' && content.comment.trim() !== '') return true;
  if (typeof content.text === 'string') return false;
  // no text: an empty body only where the capture says its size was 0
  return content.size !== 0 || (typeof bodySize === 'number' && bodySize > 0);
}

/**
 * An entry as the passive judge takes it. `interfaceOf` names the interface and relative path of a URL (from the
 * configured base URLs); without one, the judge matches the path alone. An entry that is not valid HAR is `invalid`,
 * with why.
 */
export function observedFromHar(e: HarEntry, interfaceOf: (url: URL) => { api: Api; path: string } | undefined, maxBodyBytes: number): ObservedExchange | { invalid: string } {
  const invalid = invalidEntry(e);
  if (invalid !== undefined) return { invalid };
  let url: URL;
  try {
    url = new URL(e.request.url);
  } catch {
    return { invalid: 'an entry whose request URL does not parse' };
  }
  const at = interfaceOf(url);
  const status = typeof e.response?.status === 'number' && e.response.status > 0 ? e.response.status : undefined;
  const content = e.response?.content as Record<string, unknown> | undefined;
  let body: Buffer | undefined;
  let bodyNotJudged: string | undefined;
  if (status !== undefined && bodyLeftOut(content, e.response.bodySize)) bodyNotJudged = BODY_LEFT_OUT;
  else if (status !== undefined) {
    const text = typeof content?.text === 'string' ? content.text : '';
    body = content?.encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
    if (e._truncated === true || (typeof content?.size === 'number' && content.size > maxBodyBytes) || body.length > maxBodyBytes) {
      bodyNotJudged = `body larger than ${maxBodyBytes} bytes (run.maxResponseBytes)`;
      body = undefined;
    } else if (e._invalidUtf8 === true) {
      // the recorder kept the text with replacement characters: bytes that are not UTF-8 again, as the target sent
      body = Buffer.concat([Buffer.from([0xff]), body]);
    }
  }
  const reqBody = e.request.postData?.text;
  // the request body as sent: a rule about the request may read it (its size, where the capture gives one, agrees)
  const reqBytes = typeof reqBody === 'string' ? Buffer.byteLength(reqBody) : -1;
  const requestBodyComplete = typeof reqBody === 'string' && reqBody.length <= 16 * 1024 && (typeof e.request.bodySize !== 'number' || e.request.bodySize < 0 || e.request.bodySize === reqBytes);
  return {
    ...(at !== undefined ? { api: at.api } : {}),
    method: e.request.method,
    url: e.request.url,
    path: at !== undefined ? at.path : url.pathname,
    requestHeaders: headerRecord(e.request.headers),
    ...(typeof reqBody === 'string' ? { requestBody: reqBody.length > 16 * 1024 ? reqBody.slice(0, 16 * 1024) : reqBody, requestBodyComplete } : {}),
    startedAt: typeof e.startedDateTime === 'string' ? e.startedDateTime : new Date(0).toISOString(),
    durationMs: typeof e.time === 'number' ? e.time : 0,
    ...(status !== undefined
      ? {
          status,
          responseHeaders: headerRecord(e.response.headers),
          ...(body !== undefined ? { body } : {}),
          decoded: true,
          ...(bodyNotJudged !== undefined ? { bodyNotJudged } : {}),
        }
      : { error: typeof e.response?._error === 'string' ? e.response._error : 'no response recorded' }),
  };
}

/**
 * Reads the entries of a HAR file one at a time, without holding the file: a scanner finds `log.entries` and hands each
 * entry's text to JSON.parse. An entry larger than `maxEntryBytes`, nested deeper than `maxDepth` levels, or whose
 * structure (everything but its long strings: the bodies) is larger than `maxStructureBytes`, is skipped whole
 * (`onSkipped`), so memory is bounded by them whatever the file's size (a body is one string, cheap to parse; a
 * million headers are a million objects); so is an item of the list that is not an object, or not valid JSON. Throws when the file is not a HAR (not one JSON object, no log.entries list) or is cut
 * short (it ends inside its JSON): the entries before are yielded first.
 */
export async function* readHarEntries(file: string, maxEntryBytes: number, onSkipped: (why: string) => void = () => undefined, maxDepth = 512, maxStructureBytes = Number.POSITIVE_INFINITY): AsyncGenerator<HarEntry> {
  /** a string at least this long is a body (or another text), not structure */
  const LONG = 64 * 1024;
  /** in the current entry: the bytes of its long strings, and where the string being read started (file offset) */
  let longBytes = 0;
  let stringAt = -1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** the last string closed at each depth, while it may be a key */
  let key = '';
  let keyStart = -1;
  let keyParts: Buffer[] = [];
  /** the key each open object or list outside the entries is the value of, by depth */
  const path: string[] = [];
  let entriesDepth = -1;
  let sawEntries = false;
  /** the top-level object was opened, and closed */
  let opened = false;
  let closed = false;
  /** at the entries' depth, the next value is an item of the list (after its `[` or a `,`) */
  let expectItem = false;
  let offset = 0;
  let entries = 0;
  // the current entry: its chunks, size, and whether it is being skipped
  let entry: Buffer[] | undefined;
  let entrySize = 0;
  let entryStart = -1;
  let skipping = false;
  const pending: HarEntry[] = [];
  const notJson = (at: number, c: number) =>
    new Error(`${file} is not a HAR file: it is not one JSON object (${JSON.stringify(String.fromCharCode(c))} at byte ${at})${at === 0 && c === 0x1f ? '; it looks gzip-compressed: decompress it first (gunzip)' : ''}`);
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    if (entry !== undefined && !skipping) entryStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (entry !== undefined && stringAt >= 0 && offset + i - stringAt > LONG) longBytes += offset + i - stringAt;
          stringAt = -1;
          if (keyStart >= 0 || keyParts.length > 0) {
            keyParts.push(chunk.subarray(Math.max(keyStart, 0), i));
            key = Buffer.concat(keyParts).toString('utf8');
            keyParts = [];
            keyStart = -1;
          }
        }
        continue;
      }
      // whitespace, and a byte-order mark before the object
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || (!opened && offset + i < 3 && (c === 0xef || c === 0xbb || c === 0xbf))) continue;
      if (depth === 0) {
        if (closed || c !== 0x7b) throw notJson(offset + i, c);
        opened = true;
      }
      if (depth === entriesDepth && entry === undefined) {
        if (c === 0x2c) {
          expectItem = true;
          continue;
        }
        if (expectItem && c !== 0x7b && c !== 0x5d) {
          // a list, a string, a number in the entries: skipped whole (a list by its depth, a scalar by the next comma)
          onSkipped('an entry that is not an object');
          expectItem = false;
          if (c !== 0x5b && c !== 0x22) continue;
        }
        if (c !== 0x5d) expectItem = false;
      }
      if (c === 0x22) {
        inString = true;
        if (entry !== undefined) stringAt = offset + i;
        // keys are only read outside the entries (log, entries): short, never part of an entry
        if (entry === undefined && depth <= 2) keyStart = i + 1;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (entry === undefined && depth === entriesDepth && c === 0x7b) {
          entry = [];
          entrySize = 0;
          entryStart = i;
          skipping = false;
          longBytes = 0;
        } else if (entry === undefined && depth <= 2) {
          path[depth] = key;
          // {"log": {..., "entries": [ {entry}, ... ]}}: the list opens at depth 2, its entries at depth 3
          if (depth === 2 && c === 0x5b && path[1] === 'log' && key === 'entries') {
            entriesDepth = depth + 1;
            sawEntries = true;
            expectItem = true;
          }
        }
        depth++;
        key = '';
        if (entry !== undefined && !skipping && depth - entriesDepth > maxDepth) {
          skipping = true;
          entry = [];
          onSkipped(`an entry nested deeper than ${maxDepth} levels (run.maxJsonDepth)`);
        }
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth < 0) throw notJson(offset + i, c);
        if (depth === 0) closed = true;
        if (entry !== undefined && depth === entriesDepth) {
          entries++;
          if (!skipping) {
            entry.push(chunk.subarray(entryStart, i + 1));
            entrySize += i + 1 - entryStart;
            const text = Buffer.concat(entry, entrySize).toString('utf8');
            entry = undefined;
            try {
              pending.push(JSON.parse(text) as HarEntry);
            } catch {
              onSkipped('an entry that is not valid JSON');
            }
          }
          entry = undefined;
          entryStart = -1;
        } else if (depth === entriesDepth - 1 && entriesDepth >= 0 && c === 0x5d) {
          entriesDepth = -1;
        }
        continue;
      }
    }
    offset += chunk.length;
    if (entry !== undefined && !skipping) {
      const part = chunk.subarray(Math.max(entryStart, 0));
      entrySize += part.length;
      // the string being read counts as long once it is
      const open = inString && stringAt >= 0 && offset - stringAt > LONG ? offset - stringAt : 0;
      if (entrySize > maxEntryBytes) {
        skipping = true;
        entry = [];
        onSkipped(`an entry larger than ${maxEntryBytes} bytes`);
      } else if (entrySize - longBytes - open > maxStructureBytes) {
        skipping = true;
        entry = [];
        onSkipped(`an entry whose headers, cookies and other fields (all but its bodies) are larger than ${maxStructureBytes} bytes (run.maxHeaderBytes)`);
      } else entry.push(Buffer.from(part));
    }
    if (keyStart >= 0 && inString) {
      // a key is short: a long string outside the entries (a comment) is not kept whole
      if (keyParts.reduce((n, b) => n + b.length, 0) < 1024) keyParts.push(Buffer.from(chunk.subarray(keyStart)));
      keyStart = 0;
    }
    for (const e of pending.splice(0)) yield e;
  }
  if (!opened) throw new Error(`${file} is not a HAR file: it is empty`);
  if (!sawEntries) throw new Error(`${file} is not a HAR file: it has no log.entries list`);
  if (!closed || inString) throw new Error(`${file} is cut short: it ends inside its JSON, after ${entries} whole entr${entries === 1 ? 'y' : 'ies'} (a capture still being written, or copied in part?)`);
}
