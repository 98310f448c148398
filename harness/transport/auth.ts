/**
 * Bearer tokens for a target: a static token per role, HS256 tokens minted from a shared secret with `sub` = the
 * ledger user (as test participants accept), or tokens fetched from an OAuth2 server by client credentials.
 * Every token is registered as a secret before it leaves this module.
 */
import { SignJWT } from 'jose';
import { request } from './undici-core.js';
import type { AuthConfig } from '../config.js';
import { agentFor, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_JSON_DEPTH, exchangeDeadline, isTimeout, jsonDepthExceeds, readBounded, TransportError } from './http.js';
import { redactText, registerSecret, registerUrlCredentials } from './redact.js';
import { describeTlsOrProxyFailure, proxyFor, type Transport } from './tls.js';

/** How the token request names its settings in a TLS or proxy failure: the target's `auth` block (targets.<api>.auth). */
const AUTH_SETTING = 'auth';

/** The target's auth cannot provide what a check needs: the check is skipped with this reason. */
export class AuthUnavailable extends Error {
  override name = 'AuthUnavailable';
}

interface Cached {
  token: string;
  /** when it is no longer used: its expiry less a margin in proportion to its lifetime (reuseUntil) */
  renewAt: number;
}

/** A token is renewed this share of its lifetime before it expires, and at most EXPIRY_MARGIN_MAX_MS before. */
const EXPIRY_MARGIN_SHARE = 0.1;
const EXPIRY_MARGIN_MAX_MS = 30_000;
/** the lifetime of a fetched token whose answer has no expires_in (and which is no JWT with an exp) */
const DEFAULT_TOKEN_LIFETIME_S = 300;

/** When a token of this lifetime, valid from `from`, stops being reused: shortly before its expiry, never for each request. */
export function reuseUntil(from: number, lifetimeMs: number): number {
  return from + lifetimeMs - Math.min(EXPIRY_MARGIN_MAX_MS, lifetimeMs * EXPIRY_MARGIN_SHARE);
}

/** How an identity provider that fails is asked again, and for how long its failure is remembered. */
export interface TokenFetchPolicy {
  /** attempts of one fetch when the provider cannot be reached or answers 5xx or 429 (default 3) */
  attempts: number;
  /** the wait before the second attempt, doubled before each further one (default 200 ms) */
  backoffMs: number;
  /** how long a failed fetch is answered with its error without asking the provider again (default 30 s) */
  failureMemoryMs: number;
}

export const DEFAULT_TOKEN_FETCH_POLICY: TokenFetchPolicy = { attempts: 3, backoffMs: 200, failureMemoryMs: 30_000 };

/** connection errors worth another attempt (a provider restarting, a connection dropped); timeouts are not retried, each cost run.timeoutMs */
const RETRIED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** One attempt's outcome: a token and its lifetime, or why not, and whether another attempt may help. */
type Attempt = { token: string; lifetimeMs: number } | { failure: string; retry: boolean };

/** A failed fetch, remembered: every request for the client's token until `until` ends with this message. */
interface Remembered {
  message: string;
  until: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class TokenProvider {
  private readonly cache = new Map<string, Cached>();
  /** the fetch under way per OAuth2 client (role): concurrent requests for its token share it */
  private readonly inFlight = new Map<string, Promise<string>>();
  /** the last failed fetch per OAuth2 client (role), answered again without asking the provider */
  private readonly failed = new Map<string, Remembered>();
  private readonly key: Uint8Array | undefined;
  private readonly policy: TokenFetchPolicy;

  constructor(
    private readonly auth: AuthConfig,
    private readonly timeoutMs = 5000,
    /** the token response's bound, on the wire and decoded: the targets' run.maxResponseBytes */
    private readonly maxResponseBytes = 16 * 1024 * 1024,
    /** the token response's header bound: the targets' run.maxHeaderBytes (not undici's 16 KiB default) */
    private readonly maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES,
    /** the token response's nesting bound: the targets' run.maxJsonDepth */
    private readonly maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
    policy: Partial<TokenFetchPolicy> = {},
  ) {
    this.policy = { ...DEFAULT_TOKEN_FETCH_POLICY, ...policy };
    if (auth.kind === 'static') Object.values(auth.tokens).forEach(registerSecret);
    if (auth.kind === 'hs256') {
      registerSecret(auth.secret);
      this.key = new TextEncoder().encode(auth.secret);
    }
    if (auth.kind === 'oauth2') {
      Object.values(auth.clients).forEach((c) => registerSecret(c.clientSecret));
      registerUrlCredentials(auth.tokenUrl);
    }
  }

  get kind(): AuthConfig['kind'] {
    return this.auth.kind;
  }

  /** Roles this target has credentials for (e.g. admin, user). */
  roles(): string[] {
    switch (this.auth.kind) {
      case 'none':
        return [];
      case 'static':
        return Object.keys(this.auth.tokens);
      case 'hs256':
        return Object.keys(this.auth.users);
      case 'oauth2':
        return Object.keys(this.auth.clients);
    }
  }

  /** The ledger user id a role acts as, where the config says it (hs256). */
  userOf(role: string): string | undefined {
    return this.auth.kind === 'hs256' ? this.auth.users[role] : undefined;
  }

  /** True when tokens can be made for any user id (needed by checks that create their own users). */
  get canMintForUsers(): boolean {
    return this.auth.kind === 'hs256';
  }

  async tokenFor(role: string): Promise<string> {
    switch (this.auth.kind) {
      case 'none':
        throw new AuthUnavailable(`the target has no auth configured, so there is no token for role "${role}"`);
      case 'static': {
        const t = this.auth.tokens[role];
        if (t === undefined) throw new AuthUnavailable(`no static token configured for role "${role}"`);
        return t;
      }
      case 'hs256': {
        const user = this.auth.users[role];
        if (user === undefined) throw new AuthUnavailable(`no user configured for role "${role}" (auth.users.${role})`);
        return this.tokenForUser(user);
      }
      case 'oauth2':
        return this.fetchToken(role);
    }
  }

  /** An HS256 token whose subject is `userId`; only where the target's auth is hs256. */
  async tokenForUser(userId: string): Promise<string> {
    if (this.auth.kind !== 'hs256' || this.key === undefined) {
      throw new AuthUnavailable(`tokens for arbitrary users need auth.kind "hs256" (this target uses "${this.auth.kind}")`);
    }
    const cached = this.cache.get(`user:${userId}`);
    const now = Date.now();
    if (cached !== undefined && now < cached.renewAt) return cached.token;
    const lifetime = this.auth.expiresInSeconds ?? 3600;
    let jwt = new SignJWT({ ...(this.auth.scope !== undefined ? { scope: this.auth.scope } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(now / 1000) + lifetime);
    if (this.auth.audience !== undefined) jwt = jwt.setAudience(this.auth.audience);
    if (this.auth.issuer !== undefined) jwt = jwt.setIssuer(this.auth.issuer);
    const token = await jwt.sign(this.key);
    registerSecret(token);
    this.cache.set(`user:${userId}`, { token, renewAt: reuseUntil(now, lifetime * 1000) });
    return token;
  }

  /**
   * The OAuth2 token of a role: the one fetched before until shortly before its expiry; else the fetch under way for
   * the role, shared; else the failure of the last fetch while it is remembered; else a new fetch.
   */
  private fetchToken(role: string): Promise<string> {
    if (this.auth.kind !== 'oauth2') throw new Error('unreachable');
    if (this.auth.clients[role] === undefined) return Promise.reject(new AuthUnavailable(`no OAuth2 client configured for role "${role}"`));
    const cached = this.cache.get(`role:${role}`);
    if (cached !== undefined && Date.now() < cached.renewAt) return Promise.resolve(cached.token);
    const pending = this.inFlight.get(role);
    if (pending !== undefined) return pending;
    const failed = this.failed.get(role);
    if (failed !== undefined && Date.now() < failed.until) return Promise.reject(new TransportError(failed.message));
    const fetch = this.fetchWithRetries(role).finally(() => this.inFlight.delete(role));
    this.inFlight.set(role, fetch);
    return fetch;
  }

  /** Fetches a role's token, trying again after a short wait when the provider cannot be reached or answers 5xx or 429. */
  private async fetchWithRetries(role: string): Promise<string> {
    const { attempts, backoffMs, failureMemoryMs } = this.policy;
    let failure = '';
    let tried = 0;
    while (tried < Math.max(1, attempts)) {
      if (tried > 0) await sleep(backoffMs * 2 ** (tried - 1));
      // the token's lifetime counts from the request's start: it was issued no earlier
      const sentAt = Date.now();
      const outcome = await this.fetchOnce(role);
      tried++;
      if ('token' in outcome) {
        this.failed.delete(role);
        registerSecret(outcome.token);
        this.cache.set(`role:${role}`, { token: outcome.token, renewAt: reuseUntil(sentAt, outcome.lifetimeMs) });
        return outcome.token;
      }
      failure = outcome.failure;
      if (!outcome.retry) break;
    }
    const seconds = Math.round(failureMemoryMs / 1000);
    const message = `OAuth2 token request to ${redactText((this.auth as { tokenUrl: string }).tokenUrl)} for role "${role}" failed: ${failure}${tried > 1 ? ` (${tried} attempts)` : ''}${seconds > 0 ? `; not asked again for ${seconds} s` : ''}`;
    this.failed.set(role, { message, until: Date.now() + failureMemoryMs });
    throw new TransportError(message);
  }

  /** How the token request travels: the auth block's TLS settings and proxy (the target's proxy unless it sets its own). */
  private transport(): Transport | undefined {
    if (this.auth.kind !== 'oauth2' || (this.auth.tls === undefined && this.auth.proxy === undefined)) return undefined;
    return { ...(this.auth.tls !== undefined ? { tls: this.auth.tls } : {}), ...(this.auth.proxy !== undefined ? { proxy: this.auth.proxy } : {}) };
  }

  /** One token request, within the run's bounds (timeout, header and body size, JSON depth). */
  private async fetchOnce(role: string): Promise<Attempt> {
    if (this.auth.kind !== 'oauth2') throw new Error('unreachable');
    const client = this.auth.clients[role]!;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
    if (client.scope !== undefined) form.set('scope', client.scope);
    if (client.audience !== undefined) form.set('audience', client.audience);
    let status: number;
    let text: string;
    const deadline = exchangeDeadline(this.timeoutMs);
    try {
      const res = await request(this.auth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        dispatcher: agentFor(this.auth.tokenUrl, this.transport(), AUTH_SETTING, this.maxHeaderBytes),
        ...deadline.options,
      });
      status = res.statusCode;
      const encoding = res.headers['content-encoding'];
      text = await readBounded(res, Array.isArray(encoding) ? encoding.join(', ') : encoding, this.maxResponseBytes, 'the answer');
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        // never followed: the client secret would go wherever the redirect points
        return { failure: `answered ${status}, redirected to ${redactText(String(location))}; redirects are not followed`, retry: false };
      }
    } catch (e) {
      const err = e as Error & { code?: string; cause?: { code?: string } };
      const code = err.code ?? err.cause?.code;
      if (e instanceof TransportError) return { failure: e.message, retry: false };
      const route = proxyFor(this.auth.tokenUrl, this.transport(), AUTH_SETTING);
      const named = describeTlsOrProxyFailure(e, {
        where: 'the identity provider',
        setting: AUTH_SETTING,
        https: this.auth.tokenUrl.startsWith('https:'),
        ...(this.auth.tls !== undefined ? { tls: this.auth.tls } : {}),
        ...(route !== undefined ? { proxy: route } : {}),
      });
      if (named !== undefined) return { failure: named, retry: false };
      if (isTimeout(e)) return { failure: `no answer within ${this.timeoutMs} ms (run.timeoutMs)`, retry: false };
      if (code === 'UND_ERR_HEADERS_OVERFLOW') return { failure: `the answer's headers exceed the ${this.maxHeaderBytes}-byte cap (run.maxHeaderBytes)`, retry: false };
      if (code === 'ECONNREFUSED') return { failure: 'connection refused: is the identity provider running?', retry: true };
      return { failure: redactText(`${err.message}${code !== undefined && !err.message.includes(code) ? ` (${code})` : ''}`), retry: code !== undefined && RETRIED_CODES.has(code) };
    } finally {
      deadline.clear();
    }
    if (status >= 500 || status === 429) return { failure: `answered ${status} without an access_token`, retry: true };
    // bounded like every response: a deeply nested answer never reaches the parser
    if (jsonDepthExceeds(text, this.maxJsonDepth)) {
      return { failure: `the answer (${status}) nests JSON deeper than ${this.maxJsonDepth} levels (run.maxJsonDepth); not parsed`, retry: false };
    }
    let body: { access_token?: unknown; expires_in?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // reported below without echoing the body, which may hold secrets
    }
    if (status !== 200 || typeof body !== 'object' || body === null || typeof body.access_token !== 'string' || body.access_token === '') {
      return { failure: `answered ${status} without an access_token`, retry: false };
    }
    return { token: body.access_token, lifetimeMs: lifetimeOf(body.access_token, body.expires_in) * 1000 };
  }
}

/**
 * A fetched token's lifetime in seconds: its answer's expires_in (a number, or a numeric string as some providers
 * send), else the exp of a JWT, else DEFAULT_TOKEN_LIFETIME_S.
 */
function lifetimeOf(token: string, expiresIn: unknown): number {
  const given = typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' && expiresIn.trim() !== '' ? Number(expiresIn) : Number.NaN;
  if (Number.isFinite(given) && given > 0) return given;
  const payload = token.length <= 64 * 1024 ? token.split('.')[1] : undefined;
  if (payload !== undefined && token.startsWith('eyJ')) {
    try {
      const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
      const left = typeof exp === 'number' ? exp - Date.now() / 1000 : Number.NaN;
      if (Number.isFinite(left) && left > 0) return left;
    } catch {
      // not a JWT after all
    }
  }
  return DEFAULT_TOKEN_LIFETIME_S;
}
