import type { HttpResponseInit } from '@azure/functions';

/** A response's headers as a plain object, whatever form the handler gave them in. */
export function headerRecord(headers: HttpResponseInit['headers']): Record<string, string> {
  if (headers === undefined || headers === null) return {};
  if (typeof headers === 'object' && headers.constructor === Object) {
    return { ...(headers as Record<string, string>) };
  }
  return Object.fromEntries(new Headers(headers as ConstructorParameters<typeof Headers>[0]).entries());
}

/** The value of a header in a plain record, matched case-insensitively. */
export function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** Removes a header from a plain record whatever its casing. */
export function dropHeader(headers: Record<string, string>, name: string): void {
  const lower = name.toLowerCase();
  for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) delete headers[k];
}
