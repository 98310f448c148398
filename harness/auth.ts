/**
 * Bearer tokens for a target: a static token per role, HS256 tokens minted from a shared secret with `sub` = the
 * ledger user (as test participants accept), or tokens fetched from an OAuth2 server by client credentials.
 * Every token is registered as a secret before it leaves this module.
 */
import { SignJWT } from 'jose';
import { request } from './undici-core.js';
import type { AuthConfig } from './config.js';
import { agent, DEFAULT_MAX_HEADER_BYTES, isTimeout, readBounded, TransportError } from './http.js';
import { redactText, registerSecret, registerUrlCredentials } from './redact.js';

/** The target's auth cannot provide what a check needs: the check is skipped with this reason. */
export class AuthUnavailable extends Error {
  override name = 'AuthUnavailable';
}

interface Cached {
  token: string;
  expiresAt: number;
}

export class TokenProvider {
  private readonly cache = new Map<string, Cached>();
  private readonly key: Uint8Array | undefined;

  constructor(
    private readonly auth: AuthConfig,
    private readonly timeoutMs = 5000,
    /** the token response's bound, on the wire and decoded: the targets' run.maxResponseBytes */
    private readonly maxResponseBytes = 16 * 1024 * 1024,
    /** the token response's header bound: the targets' run.maxHeaderBytes (not undici's 16 KiB default) */
    private readonly maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES,
  ) {
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
    if (cached !== undefined && cached.expiresAt - now > 30_000) return cached.token;
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
    this.cache.set(`user:${userId}`, { token, expiresAt: now + lifetime * 1000 });
    return token;
  }

  private async fetchToken(role: string): Promise<string> {
    if (this.auth.kind !== 'oauth2') throw new Error('unreachable');
    const client = this.auth.clients[role];
    if (client === undefined) throw new AuthUnavailable(`no OAuth2 client configured for role "${role}"`);
    const cached = this.cache.get(`role:${role}`);
    if (cached !== undefined && cached.expiresAt - Date.now() > 30_000) return cached.token;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
    if (client.scope !== undefined) form.set('scope', client.scope);
    if (client.audience !== undefined) form.set('audience', client.audience);
    const endpoint = redactText(this.auth.tokenUrl);
    let status: number;
    let text: string;
    try {
      const res = await request(this.auth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        dispatcher: agent(this.maxHeaderBytes),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      const encoding = res.headers['content-encoding'];
      text = await readBounded(res, Array.isArray(encoding) ? encoding.join(', ') : encoding, this.maxResponseBytes, 'the answer');
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        // never followed: the client secret would go wherever the redirect points
        throw new Error(`answered ${status}, redirected to ${redactText(String(location))}; redirects are not followed`);
      }
    } catch (e) {
      const code = (e as { code?: string }).code;
      const why = isTimeout(e)
        ? `no answer within ${this.timeoutMs} ms (run.timeoutMs)`
        : code === 'UND_ERR_HEADERS_OVERFLOW'
          ? `the answer's headers exceed the ${this.maxHeaderBytes}-byte cap (run.maxHeaderBytes)`
          : redactText((e as Error).message);
      throw new TransportError(`OAuth2 token request to ${endpoint} for role "${role}" failed: ${why}`);
    }
    let body: { access_token?: unknown; expires_in?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // reported below without echoing the body, which may hold secrets
    }
    if (status !== 200 || typeof body.access_token !== 'string') {
      throw new TransportError(`OAuth2 token request to ${redactText(this.auth.tokenUrl)} for role "${role}" answered ${status} without an access_token`);
    }
    registerSecret(body.access_token);
    const ttl = typeof body.expires_in === 'number' ? body.expires_in : 300;
    this.cache.set(`role:${role}`, { token: body.access_token, expiresAt: Date.now() + ttl * 1000 });
    return body.access_token;
  }
}
