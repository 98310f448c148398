/** A small client for the ledger tests of the reference server: tokens, requests (GET bodies too), error checks. */
import { expect } from 'vitest';
import { SignJWT } from 'jose';
import { request } from 'undici';
import { startReference, type ReferenceOptions, type ReferenceServer } from '../../reference/index.js';

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  body: Json;
}

export interface CallOptions {
  /** JSON-encoded unless a string or Buffer */
  body?: unknown;
  /** user id to mint a token for, or null for no token; default the admin user */
  as?: string | null;
  token?: string;
  headers?: Record<string, string>;
}

export interface LedgerClient {
  server: ReferenceServer;
  url: string;
  token(sub: string, secret?: string): Promise<string>;
  call(method: string, path: string, o?: CallOptions): Promise<Reply>;
  /** a unique id for users, commands, ... */
  uid(prefix: string): string;
  close(): Promise<void>;
}

let counter = 0;

export async function startLedger(options: ReferenceOptions = {}): Promise<LedgerClient> {
  const server = await startReference(options);
  const token = (sub: string, secret = server.auth.hs256Secret) =>
    new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret));
  const cache = new Map<string, string>();
  const tokenFor = async (sub: string) => {
    let t = cache.get(sub);
    if (t === undefined) cache.set(sub, (t = await token(sub)));
    return t;
  };
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = {};
    const as = o.as === undefined ? server.auth.adminUser : o.as;
    const t = o.token ?? (as === null ? undefined : await tokenFor(as));
    if (t !== undefined) headers.authorization = `Bearer ${t}`;
    let body: string | Buffer | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, o.headers);
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
    const r = await request(server.urls.ledger + path, { method: method as 'GET', headers, body });
    const text = await r.body.text();
    const contentType = String(r.headers['content-type'] ?? '');
    let parsed: Json;
    try {
      parsed = contentType.startsWith('application/json') ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: r.statusCode, contentType, text, body: parsed };
  };
  return {
    server,
    url: server.urls.ledger,
    token,
    call,
    uid: (prefix) => `${prefix}-${process.pid}-${++counter}`,
    close: () => server.close(),
  };
}

/** A JsCantonError with the given status (and code id, when given). */
export function expectCanton(r: Reply, status: number, code?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.contentType).toMatch(/^application\/json/);
  expect(isCantonError(r.body), r.text).toBe(true);
  if (code !== undefined) expect(r.body.code).toBe(code);
}

/** 400 with a text/plain message. */
export function expectPlain400(r: Reply): void {
  expect(r.status, r.text).toBe(400);
  expect(r.contentType).toMatch(/^text\/plain/);
  expect(r.text.length).toBeGreaterThan(0);
}

export function isCantonError(b: Json): boolean {
  if (typeof b !== 'object' || b === null) return false;
  if (typeof b.code !== 'string' || typeof b.cause !== 'string' || !Number.isInteger(b.errorCategory)) return false;
  if (typeof b.context !== 'object' || b.context === null || Object.values(b.context).some((v) => typeof v !== 'string')) return false;
  if (b.resources !== undefined && !(Array.isArray(b.resources) && b.resources.every((p: Json) => Array.isArray(p) && p.length === 2))) return false;
  return true;
}

export const ok = (r: Reply): Json => {
  expect(r.status, r.text).toBe(200);
  return r.body;
};

/** Rights in their JSON form. */
export const right = {
  actAs: (party: string) => ({ kind: { CanActAs: { value: { party } } } }),
  readAs: (party: string) => ({ kind: { CanReadAs: { value: { party } } } }),
  readAny: () => ({ kind: { CanReadAsAnyParty: { value: {} } } }),
  admin: () => ({ kind: { ParticipantAdmin: { value: {} } } }),
  idpAdmin: () => ({ kind: { IdentityProviderAdmin: { value: {} } } }),
  empty: () => ({ kind: { Empty: {} } }),
};

export { darArchive, zipArchive } from '../../harness/fixtures/ledger.js';
