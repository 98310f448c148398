/**
 * Secrets are redacted at the source: the HTTP recorder, the config printer and the error formatter all pass through
 * here, so no token or secret reaches a report, a log or an attachment. A registered secret is redacted as written and
 * in its encoded forms: JSON-escaped (`\/`, `\"`, `\uXXXX` in either case of hex, in any mix with plain characters)
 * and percent-encoded (encodeURIComponent's, RFC 3986's, a form body's; upper or lower-case hex).
 */
export const REDACTED = '<redacted>';

/** every value registered (JWT-shaped ones too), so a value registered again costs one lookup */
const registered = new Set<string>();
/** the values looked for as written, longest first (a secret inside another would otherwise cut the longer one) */
const secrets: string[] = [];
/** the percent-encoded forms of the values that differ from them (encodeURIComponent's, RFC 3986's, a form's; upper and lower-case hex) */
const percentForms: string[] = [];
/**
 * What is looked for in a text read as JSON (its escapes decoded): every value, JWT-shaped ones included (their plain
 * form is redacted by shape, but `\u` escapes break the shape), and its percent-encoded forms.
 */
const escapedNeedles: string[] = [];
/** The JSON escapes other than `\u` that the needles can be written with (`\/` for a `/`, `\"`, `\\`, `\n`, ...). */
const escapeMarkers = new Set<string>();
/** the characters of the needles (UTF-16 code units): a `\uXXXX` escape of another character cannot be part of one */
const needleChars = new Set<number>();

const SHORT_ESCAPES: Record<string, string> = { '/': '\\/', '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const insertByLength = (list: string[], value: string): void => {
  if (list.includes(value)) return;
  const at = list.findIndex((v) => v.length < value.length);
  if (at < 0) list.push(value);
  else list.splice(at, 0, value);
};

const lowerHex = (encoded: string) => encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** The percent-encoded forms of a value other than the value itself (none when it holds a lone surrogate). */
function percentEncoded(value: string): string[] {
  let component: string;
  try {
    component = encodeURIComponent(value);
  } catch {
    return [];
  }
  // RFC 3986 unreserved only (also !'()* encoded), and a form body's encoding (URLSearchParams: a space is '+')
  const strict = component.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const form = new URLSearchParams([['', value]]).toString().slice(1);
  const forms = new Set<string>();
  for (const f of [component, strict, form]) {
    forms.add(f);
    forms.add(lowerHex(f));
  }
  forms.delete(value);
  return [...forms];
}

/** Registers a value that must never be printed (configured tokens and secrets, minted and fetched tokens). */
export function registerSecret(value: string | undefined): void {
  // very short values would redact innocent text everywhere; config validation requires them non-empty anyway
  if (value === undefined || value.length < 4 || registered.has(value)) return;
  registered.add(value);
  // the encoded forms are worked out once, here; redactText looks for them only in a text that holds what sets them
  // apart from the value (a '%', a JSON escape one of them can be written with)
  const needles = [value];
  // a JWT is redacted by its shape already; keeping the plain list small keeps every recorded exchange cheap to redact
  if (!WHOLE_JWT.test(value)) {
    insertByLength(secrets, value);
    for (const f of percentEncoded(value)) {
      insertByLength(percentForms, f);
      needles.push(f);
    }
  }
  for (const n of needles) {
    insertByLength(escapedNeedles, n);
    for (let i = 0; i < n.length; i++) {
      needleChars.add(n.charCodeAt(i));
      const marker = SHORT_ESCAPES[n[i]!];
      if (marker !== undefined) escapeMarkers.add(marker);
    }
  }
}

/** JWTs are redacted by shape too, so a token the harness never saw (e.g. echoed by a server) is still hidden. */
const JWT = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
const WHOLE_JWT = /^eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*$/;

/**
 * Credentials inside a URL (`scheme://user:password@host`, in a target URL or an OAuth2 tokenUrl) are redacted by
 * shape wherever a URL is printed: the whole userinfo goes, the scheme and host stay.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>`]+@/gi;

/**
 * Registers the credentials of a URL's userinfo (the password, or a user name given alone, which is often a token), as
 * written and percent-decoded, so that a target echoing them elsewhere than in a URL is redacted too.
 */
export function registerUrlCredentials(url: string | undefined): void {
  const userinfo = url === undefined ? undefined : /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  if (userinfo === undefined || userinfo === '') return;
  const colon = userinfo.indexOf(':');
  const parts = colon >= 0 ? [userinfo, userinfo.slice(colon + 1)] : [userinfo];
  for (const p of parts) {
    registerSecret(p);
    try {
      registerSecret(decodeURIComponent(p));
    } catch {
      // not percent-encoded validly: the form as written is registered
    }
  }
}

export function redactText(text: string): string {
  // each pattern runs only where the text can hold it (a native substring search first: every recorded body and
  // header passes through here). The JSON-escaped forms first: a JWT with an escaped character is whole only there.
  let out = text;
  if (escapedNeedles.length > 0 && out.includes('\\') && mayHoldEscapedNeedle(out)) out = redactEscaped(out);
  if (out.includes('eyJ')) out = out.replace(JWT, REDACTED);
  if (out.includes('@') && out.includes('://')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  if (out.includes('=') || out.includes('":')) {
    if (extraNames.size === 0) out = redactByCredentialWords(out);
    else {
      // a listed name need not hold a credential word: every name is looked at
      if (out.includes('=')) out = redactNamedParameters(out);
      if (out.includes('":')) out = redactNamedJsonFields(out);
      if (out.includes('\\":')) out = redactNamedEscapedJsonFields(out);
    }
  }
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  if (percentForms.length > 0 && out.includes('%')) for (const f of percentForms) if (out.includes(f)) out = out.split(f).join(REDACTED);
  return out;
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whether a text holds an escape a needle can be written with: one of their short escapes, or `\uXXXX` of one of their characters. */
function mayHoldEscapedNeedle(text: string): boolean {
  for (const m of escapeMarkers) if (text.includes(m)) return true;
  for (let i = text.indexOf('\\u'); i >= 0; i = text.indexOf('\\u', i + 2)) {
    if (i + 6 <= text.length && isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5))) {
      if (needleChars.has(Number.parseInt(text.slice(i + 2, i + 6), 16))) return true;
    }
  }
  return false;
}

/** The character a JSON escape other than `\uXXXX` stands for, by the code of the character after the backslash. */
const SHORT_UNESCAPED: Record<number, string> = { 34: '"', 92: '\\', 47: '/', 98: '\b', 102: '\f', 110: '\n', 114: '\r', 116: '\t' };

/**
 * Redacts the needles written with JSON escapes (`\/`, `\"`, `\uXXXX` in either case of hex, in any mix with plain
 * characters): the text is read as JSON reads a string (each escape decoded, left to right, so `\\u0041` is a
 * backslash and `u0041`), the needles and JWT shapes are looked for in that reading, and each one found is cut from the
 * text as written, escapes and all.
 */
function redactEscaped(text: string): string {
  const parts: string[] = [];
  // where each escape starts and ends, in the reading (view) and in the text: a run between two is copied as is
  const viewAt: number[] = [0];
  const textAt: number[] = [0];
  let copied = 0;
  let v = 0;
  for (let i = text.indexOf('\\'); i >= 0 && i < text.length - 1; ) {
    const e = text.charCodeAt(i + 1);
    let decoded = SHORT_UNESCAPED[e];
    let length = 2;
    if (e === 117 && i + 6 <= text.length && isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5))) {
      decoded = String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
      length = 6;
    }
    if (decoded === undefined) {
      // not an escape: the backslash stays as written
      i = text.indexOf('\\', i + 1);
      continue;
    }
    parts.push(text.slice(copied, i), decoded);
    v += i - copied;
    viewAt.push(v);
    textAt.push(i);
    v += 1;
    copied = i + length;
    viewAt.push(v);
    textAt.push(copied);
    i = text.indexOf('\\', copied);
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  const view = parts.join('');
  const spans: Array<[number, number]> = [];
  for (const n of escapedNeedles) {
    for (let k = view.indexOf(n); k >= 0; k = view.indexOf(n, k + n.length)) spans.push([k, k + n.length]);
  }
  if (view.includes('eyJ')) for (const m of view.matchAll(JWT)) spans.push([m.index, m.index + m[0].length]);
  if (spans.length === 0) return text;
  // a position of the view in the text: after the last escape boundary at or before it, the characters are the same
  const inText = (k: number): number => {
    let lo = 0;
    let hi = viewAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (viewAt[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return textAt[lo]! + (k - viewAt[lo]!);
  };
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  let end = -1;
  for (const [from, to] of spans) {
    if (from < end) {
      // overlaps the span being cut: extends it
      end = Math.max(end, to);
      continue;
    }
    if (end >= 0) {
      out += REDACTED;
      at = inText(end);
    }
    out += text.slice(at, inText(from));
    end = to;
  }
  return out + REDACTED + text.slice(inText(end));
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'sec-websocket-protocol', 'x-api-key']);

/*
 * Credentials nobody configured (passive modes see other people's traffic): values are redacted by the name they come
 * under. A name is compared lower-case with `-`, `_`, `.` and spaces left out.
 * - Headers, query parameters and form fields: a name that holds token, secret, key, auth, session, password or
 *   signature, except the names of data that is no secret (page tokens, public keys, contract keys, key data and
 *   spec, and the authentication challenges a server sends: WWW-Authenticate, Proxy-Authenticate).
 * - JSON fields (string values only): the same words but `key`, which alone names ordinary data in these APIs (a
 *   topology's keyData, a contract key); only the key names that are credentials (apiKey, privateKey, accessKey,
 *   secretKey). `author...` (authorizers) is not `auth`, but `authorization` is.
 * - Any name listed by registerSecretNames (the run.redactNames setting), wherever it appears.
 */
const CREDENTIAL_WORDS = /token|secret|key|auth|session|passw|signature|credential|cookie|jwt/;
const JSON_CREDENTIAL_WORDS = /token|secret|passw|session|signature|credential|cookie|jwt|apikey|privatekey|accesskey|secretkey|^authorization$|auth(?!or)/;
const NOT_CREDENTIAL = /pagetoken|publickey|contractkey|^keydata$|^keyspec$|^wwwauthenticate$|^proxyauthenticate$/;
/** the words a credential's name holds (CREDENTIAL_WORDS, JSON_CREDENTIAL_WORDS), as a text may write them */
const CREDENTIAL_WORD = /token|secret|key|auth|session|passw|signature|credential|cookie|jwt/gi;
/** the names registerSecretNames listed, normalized */
const extraNames = new Set<string>();

const normalizedName = (name: string) => name.toLowerCase().replace(/[-_.\s]/g, '');

/** the answers so far, by name as written (names repeat in every body): forgotten when a name is listed, and when full */
const nameAnswers = new Map<string, boolean>();
const fieldAnswers = new Map<string, boolean>();
const remembered = (cache: Map<string, boolean>, name: string, answer: () => boolean): boolean => {
  let v = cache.get(name);
  if (v === undefined) {
    if (cache.size >= 4096) cache.clear();
    v = answer();
    cache.set(name, v);
  }
  return v;
};

/** Whether values under this header, query parameter or form field name are credentials. */
export function isCredentialName(name: string): boolean {
  return remembered(nameAnswers, name, () => {
    const n = normalizedName(name);
    return extraNames.has(n) || (CREDENTIAL_WORDS.test(n) && !NOT_CREDENTIAL.test(n));
  });
}

/** Whether the string value of a JSON field of this name is a credential. */
export function isCredentialField(name: string): boolean {
  return remembered(fieldAnswers, name, () => {
    const n = normalizedName(name);
    return extraNames.has(n) || (JSON_CREDENTIAL_WORDS.test(n) && !NOT_CREDENTIAL.test(n));
  });
}

/** More names whose values are redacted wherever they appear (headers, query, form and JSON fields): run.redactNames. */
export function registerSecretNames(names: readonly string[] | undefined): void {
  for (const name of names ?? []) {
    const n = normalizedName(name);
    if (n !== '') extraNames.add(n);
  }
  nameAnswers.clear();
  fieldAnswers.clear();
}

/**
 * `name=value` at the start of a text, a word or a quoted string, or after `?`, `&`, `;` or `,` (a URL's query, a form
 * body, a cookie-like list, `session=...` quoted in a message). The
 * value ends before a quote or a backslash: a URL inside a JSON string keeps its closing quote and escapes.
 */
const NAMED_PARAMETER = /(^|[?&;,\s"'(]\s*)([A-Za-z0-9_.%[\]-]{1,128})=([^&#;\s"'<>\\]*)/g;

function redactNamedParameters(text: string): string {
  return text.replace(NAMED_PARAMETER, (whole, before: string, name: string, value: string) => {
    // a base64 text's padding (`abc==`) is no parameter
    if (/^=*$/.test(value) || value === REDACTED) return whole;
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // the name as written
    }
    return isCredentialName(decoded) ? `${before}${name}=${REDACTED}` : whole;
  });
}

/** A JSON field name and the opening quote of its string value. */
const JSON_STRING_FIELD = /"((?:[^"\\]|\\.){1,128})"\s*:\s*"/g;

function redactNamedJsonFields(text: string): string {
  let out = '';
  let copied = 0;
  JSON_STRING_FIELD.lastIndex = 0;
  for (let m = JSON_STRING_FIELD.exec(text); m !== null; m = JSON_STRING_FIELD.exec(text)) {
    const from = m.index + m[0].length;
    if (!isCredentialField(m[1]!)) {
      // the value is a string: the next field name starts after it (a key-shaped string inside it is no field)
      JSON_STRING_FIELD.lastIndex = endOfString(text, from);
      continue;
    }
    const to = endOfString(text, from);
    const value = text.slice(from, to);
    if (value !== '' && value !== REDACTED) {
      // an authorization's scheme stays readable, as in a redacted header
      const scheme = /^(Bearer|Basic)\s+(?!<redacted>)/i.exec(value)?.[0] ?? '';
      out += text.slice(copied, from) + scheme + REDACTED;
      copied = to;
    }
    JSON_STRING_FIELD.lastIndex = to;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** [A-Za-z0-9_.%[\]-] */
const isParameterNameChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 37 || c === 91 || c === 93 || c === 45;
/** ? & ; , whitespace " ' ( */
const isBeforeParameter = (c: number) => c === 63 || c === 38 || c === 59 || c === 44 || c === 32 || c === 9 || c === 10 || c === 13 || c === 34 || c === 39 || c === 40;
/** & # ; whitespace " ' < > \ */
const isParameterValueEnd = (c: number) => c === 38 || c === 35 || c === 59 || c === 32 || c === 9 || c === 10 || c === 13 || c === 34 || c === 39 || c === 60 || c === 62 || c === 92;

/**
 * redactNamedParameters, redactNamedJsonFields and redactNamedEscapedJsonFields in one pass that looks only where a
 * credential word is (most texts hold none, or a few): each word found is taken as part of a JSON field's name (plain
 * or written inside a JSON string) or a `name=value` parameter's, and the value is redacted when the name says so.
 */
function redactByCredentialWords(text: string): string {
  let out = '';
  let copied = 0;
  CREDENTIAL_WORD.lastIndex = 0;
  for (let m = CREDENTIAL_WORD.exec(text); m !== null; m = CREDENTIAL_WORD.exec(text)) {
    const span = jsonFieldAround(text, m.index, m.index + m[0].length) ?? parameterAround(text, m.index, m.index + m[0].length);
    if (span === undefined) continue;
    const [from, to, replacement] = span;
    if (from < copied) continue;
    out += text.slice(copied, from) + replacement;
    copied = to;
    CREDENTIAL_WORD.lastIndex = to;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The value to redact of the JSON field whose name holds text[from, to), when it is a credential's: [start, end, replacement]. */
function jsonFieldAround(text: string, from: number, to: number): [number, number, string] | undefined {
  let open = from - 1;
  while (open >= 0 && from - open <= 128 && text.charCodeAt(open) !== 34 && text.charCodeAt(open) !== 92) open--;
  if (open < 0 || text.charCodeAt(open) !== 34) return undefined;
  let close = to;
  while (close < text.length && close - to <= 128 && text.charCodeAt(close) !== 34 && text.charCodeAt(close) !== 92) close++;
  // the name ends at a quote, or at `\"` when the JSON is written inside a JSON string
  const escaped = text.charCodeAt(open - 1) === 92;
  if (escaped ? text.charCodeAt(close) !== 92 || text.charCodeAt(close + 1) !== 34 : text.charCodeAt(close) !== 34) return undefined;
  let at = close + (escaped ? 2 : 1);
  while (at < text.length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13 || text.charCodeAt(at) === 9)) at++;
  if (text.charCodeAt(at) !== 58) return undefined;
  at++;
  while (at < text.length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13 || text.charCodeAt(at) === 9)) at++;
  if (escaped ? text.charCodeAt(at) !== 92 || text.charCodeAt(at + 1) !== 34 : text.charCodeAt(at) !== 34) return undefined;
  if (!isCredentialField(text.slice(open + 1, close))) return undefined;
  const start = at + (escaped ? 2 : 1);
  let end = start;
  if (!escaped) end = endOfString(text, start);
  else {
    for (; end < text.length; end++) {
      if (text.charCodeAt(end) === 92 && text.charCodeAt(end + 1) === 92) end++;
      else if (text.charCodeAt(end) === 92 && text.charCodeAt(end + 1) === 34) break;
      else if (text.charCodeAt(end) === 34) break;
    }
  }
  const value = text.slice(start, end);
  if (value === '' || value === REDACTED) return undefined;
  // an authorization's scheme stays readable, as in a redacted header
  const scheme = /^(Bearer|Basic)\s+(?!<redacted>)/i.exec(value)?.[0] ?? '';
  return [start, end, scheme + REDACTED];
}

/** The value to redact of the `name=value` parameter whose name holds text[from, to), when it is a credential's. */
function parameterAround(text: string, from: number, to: number): [number, number, string] | undefined {
  let end = to;
  while (end < text.length && end - from < 128 && isParameterNameChar(text.charCodeAt(end))) end++;
  if (text.charCodeAt(end) !== 61) return undefined;
  let start = from;
  while (start > 0 && from - start < 128 && isParameterNameChar(text.charCodeAt(start - 1))) start--;
  if (start > 0 && !isBeforeParameter(text.charCodeAt(start - 1))) return undefined;
  let valueEnd = end + 1;
  while (valueEnd < text.length && !isParameterValueEnd(text.charCodeAt(valueEnd))) valueEnd++;
  const value = text.slice(end + 1, valueEnd);
  // a base64 text's padding (`abc==`) is no parameter
  if (/^=*$/.test(value) || value === REDACTED) return undefined;
  let name = text.slice(start, end);
  try {
    name = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // the name as written
  }
  return isCredentialName(name) ? [end + 1, valueEnd, REDACTED] : undefined;
}

/** A JSON field name and the opening quote of its string value, in JSON written inside a JSON string (`\"token\":\"`). */
const ESCAPED_JSON_STRING_FIELD = /\\"([A-Za-z0-9_.$-]{1,128})\\"\s*:\s*\\"/g;

function redactNamedEscapedJsonFields(text: string): string {
  let out = '';
  let copied = 0;
  ESCAPED_JSON_STRING_FIELD.lastIndex = 0;
  for (let m = ESCAPED_JSON_STRING_FIELD.exec(text); m !== null; m = ESCAPED_JSON_STRING_FIELD.exec(text)) {
    if (!isCredentialField(m[1]!)) continue;
    const from = m.index + m[0].length;
    // the value ends at the next escaped quote (one backslash before it, not two)
    let to = from;
    for (; to < text.length; to++) {
      if (text.charCodeAt(to) === 92 && text.charCodeAt(to + 1) === 92) to++;
      else if (text.charCodeAt(to) === 92 && text.charCodeAt(to + 1) === 34) break;
      else if (text.charCodeAt(to) === 34) break;
    }
    const value = text.slice(from, to);
    if (value !== '' && value !== REDACTED) {
      out += text.slice(copied, from) + REDACTED;
      copied = to;
    }
    ESCAPED_JSON_STRING_FIELD.lastIndex = to;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Where the JSON string whose text starts at `from` ends (its closing quote; the text's end when it is cut short). */
function endOfString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return text.length;
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower) || isCredentialName(lower)) {
      const scheme = /^(Bearer|Basic)\s/i.exec(value)?.[1];
      out[lower] = scheme !== undefined ? `${scheme} ${REDACTED}` : REDACTED;
    } else {
      out[lower] = redactText(value);
    }
  }
  return out;
}

/** Field names whose values are secrets wherever they appear (page tokens are not secrets and stay readable). */
const SECRET_KEYS = /^(access_?token|id_?token|refresh_?token|token|tokens|secret|client_?secret|password|jwt|authorization|api_?key)$/i;

export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? redactSecretField(v) : redactValue(v)]),
    );
  }
  return value;
}

function redactSecretField(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    // a map of role -> token: keep the roles, hide the tokens
    return Object.fromEntries(Object.keys(v).map((k) => [k, REDACTED]));
  }
  return REDACTED;
}
