import type { HttpResponseInit } from '@azure/functions';

const JSON_TYPE = 'application/json; charset=utf-8';

/** JSON answer; Prisma decimals and bigints become plain JSON numbers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponseInit {
  return { status, body: stringify(body), headers: { 'Content-Type': JSON_TYPE, ...headers } };
}

export const ok = (body: unknown, headers?: Record<string, string>) => json(200, body, headers);

/** 200 with JSON text already written (a long list written by jsonRows). */
export function okJsonText(text: string, headers: Record<string, string> = {}): HttpResponseInit {
  return { status: 200, body: text, headers: { 'Content-Type': JSON_TYPE, ...headers } };
}

export function noContent(status = 204): HttpResponseInit {
  return { status };
}

/** 200 with an empty body, as the original's `Ok()` answers. */
export function emptyOk(): HttpResponseInit {
  return { status: 200 };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): HttpResponseInit {
  return { status, body, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers } };
}

export function stringify(value: unknown): string {
  // The holder's raw value is checked because Decimal's toJSON has already made `v` a string.
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const raw = this[key] as { toFixed?: unknown; d?: unknown; e?: unknown } | null | undefined;
    if (typeof v === 'bigint') return Number(v);
    // Prisma.Decimal (decimal.js) serialises to a string by default; money is a JSON number.
    if (
      raw !== null &&
      typeof raw === 'object' &&
      typeof raw.toFixed === 'function' &&
      'd' in raw &&
      'e' in raw
    ) {
      return Number(String(raw));
    }
    return v;
  });
}

// True when the client asked for JSON rather than anything (star/star), as ASP.NET negotiates.
export function prefersJson(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  return types.includes('application/json') && !types.includes('*/*') && !types.includes('text/plain');
}
