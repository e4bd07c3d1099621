// How the Azure Functions host picks the HTTP function for a request, reproduced from its
// documented (and reported) behaviour, so tests can route a request over the registrations a
// bundle actually made:
//
// - HTTP functions are tried in the order of their names, compared ordinal and case-insensitive,
//   and the first whose route template (and method list) matches wins; no ASP.NET Core-style
//   precedence of literals over parameters (Azure/azure-functions-host#9876 and #3153,
//   Azure/azure-functions-nodejs-library#300; the ranking PR Azure/azure-webjobs-sdk-extensions#842
//   was never merged).
// - Templates are ASP.NET Core route templates ("Route templates" and "Route constraints" in
//   learn.microsoft.com/aspnet/core/fundamentals/routing): literals match case-insensitively,
//   `{x}` one non-empty segment, `{x?}` an optional last segment, `{*x}`/`{**x}` the rest of the
//   path (possibly empty), `{x:int}`/`{x:guid}`/... constrain the value; a trailing slash is
//   ignored. host.json's routePrefix is "", so templates start at the path's first segment.
// - No match: the host's own 404 (an empty body, not our problem+json).

export interface HostRegistration {
  name: string;
  methods: string[];
  route: string;
}

export type HostRouting =
  | { kind: 'function'; name: string; params: Record<string, string> }
  | { kind: 'host-not-found' };

type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string; optional: boolean; constraints: string[] }
  | { kind: 'catch-all'; name: string };

const GUID_FORMATS = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // D
  /^[0-9a-f]{32}$/i, // N
  /^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/i, // B
  /^\([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)$/i, // P
];

function integerWithin(value: string, bits: 32 | 64): boolean {
  if (!/^[+-]?\d+$/.test(value)) return false;
  const n = BigInt(value);
  const limit = 1n << BigInt(bits - 1);
  return n >= -limit && n < limit;
}

const CONSTRAINTS: Record<string, (value: string) => boolean> = {
  int: (v) => integerWithin(v, 32),
  long: (v) => integerWithin(v, 64),
  guid: (v) => GUID_FORMATS.some((f) => f.test(v)),
  bool: (v) => /^(true|false)$/i.test(v),
  alpha: (v) => /^[a-z]+$/i.test(v),
};

export function parseTemplate(template: string): Segment[] {
  return template
    .split('/')
    .filter((s) => s.length > 0)
    .map((text): Segment => {
      const m = /^\{(\*{1,2})?([A-Za-z_]\w*)((?::[a-z]+)*)(\?)?\}$/.exec(text);
      if (!m) {
        if (text.includes('{')) throw new Error(`unsupported route segment ${text}`);
        return { kind: 'literal', text };
      }
      const [, star, name, constraintText, optional] = m;
      if (star) return { kind: 'catch-all', name: name! };
      const constraints = (constraintText ?? '').split(':').filter(Boolean);
      for (const c of constraints) if (!CONSTRAINTS[c]) throw new Error(`unsupported constraint ${c}`);
      return { kind: 'param', name: name!, optional: optional === '?', constraints };
    });
}

/** Route values of a template for a path (segments already URL-decoded), or undefined. */
export function matchTemplate(template: string, pathname: string): Record<string, string> | undefined {
  const segments = parseTemplate(template);
  const parts = pathname.replace(/^\/+/, '').replace(/\/$/, '').split('/');
  if (parts.length === 1 && parts[0] === '') parts.length = 0;
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
  const values: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = decoded[i];
    if (seg.kind === 'catch-all') {
      values[seg.name] = decoded.slice(i).join('/');
      return values;
    }
    if (part === undefined || part === '') {
      if (seg.kind === 'param' && seg.optional && i === segments.length - 1) return values;
      return undefined;
    }
    if (seg.kind === 'literal') {
      if (seg.text.toUpperCase() !== part.toUpperCase()) return undefined;
    } else {
      if (!seg.constraints.every((c) => CONSTRAINTS[c]!(part))) return undefined;
      values[seg.name] = part;
    }
  }
  return decoded.length === segments.length ? values : undefined;
}

/** .NET's StringComparer.OrdinalIgnoreCase: compare the upper-cased UTF-16 code units. */
export function compareOrdinalIgnoreCase(a: string, b: string): number {
  const x = a.toUpperCase();
  const y = b.toUpperCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The function the host runs for a request, and the route values it binds. */
export function routeLikeFunctionsHost(
  registrations: readonly HostRegistration[],
  method: string,
  pathname: string,
): HostRouting {
  const ordered = [...registrations].sort((a, b) => compareOrdinalIgnoreCase(a.name, b.name));
  for (const reg of ordered) {
    if (!reg.methods.some((m) => m.toUpperCase() === method.toUpperCase())) continue;
    const params = matchTemplate(reg.route, pathname);
    if (params) return { kind: 'function', name: reg.name, params };
  }
  return { kind: 'host-not-found' };
}
