/**
 * Which interface and operation an observed request is: by the interface it reached (a listener of its own, or a base
 * URL), else by its path alone. Operations are matched by method and path template as the OpenAPI documents write
 * them, a literal segment before a parameter; a parameter matches any one segment, the empty one too (a request the
 * suite sends with an empty id is named by the operation it called, and so is one observed).
 */
import type { OperationInfo, SchemaRegistry } from '../judging/schemas.js';
import { APIS, type Api } from '../types.js';

interface Template {
  operation: OperationInfo;
  segments: Array<string | undefined>;
  /** literal segments: the more, the more specific */
  literals: number;
}

/** The path of a base URL without a trailing slash ('' for the root), e.g. /api/scan. */
export const basePath = (url: string): string => new URL(url).pathname.replace(/\/+$/, '');

/** Splits a path (without query) into its segments: '/v2/users/' gives ['v2', 'users', '']. */
const segmentsOf = (path: string): string[] => (path.startsWith('/') ? path.slice(1) : path).split('/');

export class OperationMatcher {
  private readonly templates = new Map<Api, Map<number, Template[]>>();

  constructor(private readonly schemas: SchemaRegistry) {}

  private byLength(api: Api): Map<number, Template[]> {
    let m = this.templates.get(api);
    if (m !== undefined) return m;
    m = new Map();
    for (const operation of this.schemas.operations(api)) {
      const segments = segmentsOf(operation.path).map((s) => (/^\{[^}]+\}$/.test(s) ? undefined : s));
      const t: Template = { operation, segments, literals: segments.filter((s) => s !== undefined).length };
      const list = m.get(segments.length) ?? [];
      list.push(t);
      m.set(segments.length, list);
    }
    for (const list of m.values()) list.sort((a, b) => b.literals - a.literals);
    this.templates.set(api, m);
    return m;
  }

  /** The templates of `api` whose path matches `segments` (any method), the most specific first. */
  private matching(api: Api, segments: readonly string[]): Template[] {
    const list = this.byLength(api).get(segments.length) ?? [];
    const out: Template[] = [];
    let best = -1;
    for (const t of list) {
      if (t.literals < best) break;
      if (t.segments.every((s, i) => s === undefined || s === segments[i])) {
        out.push(t);
        best = t.literals;
      }
    }
    return out;
  }

  /**
   * The operation of `api` a request is, its path relative to the interface's base URL (without the query): undefined
   * when no operation of the interface has that method and path.
   */
  match(api: Api, method: string, path: string): OperationInfo | undefined {
    const m = method.toUpperCase();
    return this.matching(api, segmentsOf(path)).find((t) => t.operation.method === m)?.operation;
  }

  /**
   * The interface and operation of a request known only by its path: the interface one of whose templates matches the
   * longest tail of the path (what comes before is taken as the interface's base path, e.g. /api/scan). Where two
   * interfaces match the same tail, the one the base path names wins (scan in /api/scan); else none does.
   */
  matchByPath(method: string, fullPath: string): { api: Api; path: string; operation?: OperationInfo } | undefined {
    const segments = segmentsOf(fullPath);
    for (let skip = 0; skip < segments.length; skip++) {
      const tail = segments.slice(skip);
      const apis = APIS.filter((api) => this.matching(api, tail).length > 0);
      if (apis.length === 0) continue;
      const prefix = segments.slice(0, skip);
      const named = apis.filter((api) => prefix.includes(api));
      const api = apis.length === 1 ? apis[0]! : named.length === 1 ? named[0]! : undefined;
      if (api === undefined) return undefined;
      const path = `/${tail.join('/')}`;
      const operation = this.match(api, method, path);
      return { api, path, ...(operation !== undefined ? { operation } : {}) };
    }
    return undefined;
  }
}

/** One interface's base URL, parsed once: its origin and base path. */
export interface InterfaceBase {
  api: Api;
  origin: string;
  path: string;
}

export function interfaceBases(targets: Partial<Record<Api, { url: string }>>): InterfaceBase[] {
  const out: InterfaceBase[] = [];
  for (const api of APIS) {
    const t = targets[api];
    if (t === undefined) continue;
    const u = new URL(t.url);
    out.push({ api, origin: u.origin, path: basePath(t.url) });
  }
  // the longest base path first: the ledger's is often the root
  return out.sort((a, b) => b.path.length - a.path.length);
}

/** Whether `path` lies under the base path `base` ('' is the root): /api/scan/v0/x under /api/scan, /api/scanner not. */
export const under = (path: string, base: string): boolean => base === '' || path === base || path.startsWith(`${base}/`);

/**
 * The interface a URL addresses among configured base URLs (same origin, path under the base path), with its path
 * relative to the base; undefined when none does.
 */
export function interfaceOf(bases: readonly InterfaceBase[], url: URL, sameOrigin = true): { api: Api; path: string } | undefined {
  for (const b of bases) {
    if (sameOrigin && b.origin !== url.origin) continue;
    if (under(url.pathname, b.path)) return { api: b.api, path: url.pathname.slice(b.path.length) || '/' };
  }
  return undefined;
}
