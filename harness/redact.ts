/**
 * Secrets are redacted at the source: the HTTP recorder, the config printer and the error formatter all pass through
 * here, so no token or secret reaches a report, a log or an attachment.
 */
export const REDACTED = '<redacted>';

const secrets = new Set<string>();

/** Registers a value that must never be printed (configured tokens and secrets, minted and fetched tokens). */
export function registerSecret(value: string | undefined): void {
  // very short values would redact innocent text everywhere; config validation requires them non-empty anyway
  if (value === undefined || value.length < 4) return;
  // a JWT is redacted by its shape already; keeping the set small keeps every recorded exchange cheap to redact
  if (WHOLE_JWT.test(value)) return;
  secrets.add(value);
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
  // header passes through here)
  let out = text.includes('eyJ') ? text.replace(JWT, REDACTED) : text;
  if (out.includes('@') && out.includes('://')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'sec-websocket-protocol', 'x-api-key']);

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower)) {
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
