import { STATUS_CODES } from 'node:http';
import type { HttpResponseInit } from '@azure/functions';

/** Field name → messages, as ASP.NET Core's ValidationProblemDetails carries them. */
export type ValidationErrors = Record<string, string[]>;

export interface ProblemOptions {
  errors?: ValidationErrors;
  headers?: Record<string, string>;
  /** Extra members merged into the body (kept camelCase). */
  extensions?: Record<string, unknown>;
  type?: string;
  title?: string;
}

/**
 * An error that becomes an RFC 9457 problem+json answer. Thrown anywhere below a handler; the
 * dispatcher turns it into the response, so handlers never hand-build error bodies.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly options: ProblemOptions;

  constructor(status: number, detail: string, options: ProblemOptions = {}) {
    super(detail);
    this.name = 'HttpError';
    this.status = status;
    this.detail = detail;
    this.options = options;
  }
}

export const badRequest = (detail: string, errors?: ValidationErrors) =>
  new HttpError(400, detail, errors ? { errors, title: 'One or more validation errors occurred.' } : {});
export const unauthorized = (detail = 'Authentication is required.') =>
  new HttpError(401, detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (detail = 'You are not allowed to do this.') => new HttpError(403, detail);
export const notFound = (detail = 'Not found.') => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
/** 503 with Retry-After (seconds): a dependency cannot answer now; the same request may succeed later. */
export const serviceUnavailable = (detail: string, retryAfterSeconds: number) =>
  new HttpError(503, detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });

const RFC9110_SECTIONS: Record<number, string> = {
  400: '15.5.1',
  401: '15.5.2',
  403: '15.5.4',
  404: '15.5.5',
  405: '15.5.6',
  409: '15.5.10',
  413: '15.5.14',
  415: '15.5.16',
  422: '15.5.21',
  429: '6.6',
  500: '15.6.1',
  503: '15.6.4',
};

function typeFor(status: number): string {
  if (status === 429) return 'https://www.rfc-editor.org/rfc/rfc6585#section-4';
  const section = RFC9110_SECTIONS[status];
  return section ? `https://tools.ietf.org/html/rfc9110#section-${section}` : 'about:blank';
}

/** The problem+json response: `message` repeats `detail` because the original's clients read it. */
export function problemResponse(
  status: number,
  detail: string,
  options: ProblemOptions = {},
  instance?: string,
  traceId?: string,
): HttpResponseInit {
  const body: Record<string, unknown> = {
    type: options.type ?? typeFor(status),
    title: options.title ?? STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    message: detail,
  };
  if (instance) body.instance = instance;
  if (traceId) body.traceId = traceId;
  if (options.errors) body.errors = options.errors;
  if (options.extensions) Object.assign(body, options.extensions);
  return {
    status,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/problem+json; charset=utf-8', ...(options.headers ?? {}) },
  };
}
