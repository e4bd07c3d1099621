import type { HttpMethod, RouteDefinition } from './route.js';
import { fullPath } from './route.js';

interface CompiledRoute {
  route: RouteDefinition;
  segments: Array<{ literal: string } | { param: string }>;
}

export type RouteMatch =
  | { kind: 'match'; route: RouteDefinition; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: HttpMethod[] }
  | { kind: 'not-found' };

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * Routing as ASP.NET Core does it, which the original's clients were written against: literal
 * segments match case-insensitively, a literal beats a parameter at the same position
 * (`User/GetAll` before `User/{email}`), a trailing slash is tolerated, an unknown path is 404 and
 * a known path with another method is 405.
 */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly RouteDefinition[]) {
    this.compiled = routes.map((route) => ({
      route,
      segments: splitPath(fullPath(route)).map((s) => {
        const m = /^\{(\w+)\}$/.exec(s);
        return m ? { param: m[1]! } : { literal: s.toLowerCase() };
      }),
    }));
    // Most specific first: compare position by position, literal before parameter.
    this.compiled.sort((a, b) => {
      const n = Math.min(a.segments.length, b.segments.length);
      for (let i = 0; i < n; i++) {
        const la = 'literal' in a.segments[i]!;
        const lb = 'literal' in b.segments[i]!;
        if (la !== lb) return la ? -1 : 1;
      }
      return 0;
    });
  }

  match(method: string, pathname: string): RouteMatch {
    let raw: string[];
    try {
      raw = splitPath(pathname).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not-found' };
    }
    const lower = raw.map((s) => s.toLowerCase());
    const allow = new Set<HttpMethod>();
    for (const c of this.compiled) {
      if (c.segments.length !== raw.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < raw.length && ok; i++) {
        const seg = c.segments[i]!;
        if ('literal' in seg) ok = seg.literal === lower[i];
        else params[seg.param] = raw[i]!;
      }
      if (!ok) continue;
      if (c.route.method === method.toUpperCase()) return { kind: 'match', route: c.route, params };
      allow.add(c.route.method);
    }
    if (allow.size > 0) return { kind: 'method-not-allowed', allow: [...allow] };
    return { kind: 'not-found' };
  }
}
