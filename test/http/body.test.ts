import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Decimal } from '../../shared/db/generated/internal/prismaNamespace.js';
import { normalizeKeys, parseJsonText, validate } from '../../shared/http/body.js';
import { HttpError } from '../../shared/http/problem.js';
import { stringify } from '../../shared/http/respond.js';

describe('request bodies', () => {
  const schema = z.object({
    userId: z.string(),
    clusters: z.array(z.object({ clusterName: z.string() })).optional(),
    nested: z.object({ apiKey: z.string() }).nullable().optional(),
  });

  it('matches property names case-insensitively at every depth', () => {
    expect(
      normalizeKeys(
        { USERID: 'u', Clusters: [{ CLUSTERNAME: 'c' }], nested: { apikey: 'k' }, extra: 1 },
        schema,
      ),
    ).toEqual({ userId: 'u', clusters: [{ clusterName: 'c' }], nested: { apiKey: 'k' }, extra: 1 });
  });

  it('keeps the exactly spelled property when a differently cased duplicate is present', () => {
    expect(normalizeKeys({ userid: 'second', userId: 'exact' }, schema)).toEqual({ userId: 'exact' });
  });

  it('renames inside a union only through its object option, and leaves a record spelled as the schema as it is', () => {
    const withUnions = z.object({
      cores: z.union([z.number(), z.string().transform(Number)]),
      target: z.union([z.string(), z.object({ podName: z.string() })]).optional(),
    });
    // Nothing to rename: the very object comes back (a batch of thousands of records is not copied).
    const asSent = { cores: '0.5' };
    expect(normalizeKeys(asSent, withUnions)).toBe(asSent);
    expect(normalizeKeys({ Cores: 1, target: { PODNAME: 'p' } }, withUnions)).toEqual({
      cores: 1,
      target: { podName: 'p' },
    });
    expect(normalizeKeys({ cores: 1, target: { PODNAME: 'p' } }, withUnions)).toEqual({
      cores: 1,
      target: { podName: 'p' },
    });
  });

  it('reports every invalid field by name', () => {
    try {
      validate(schema, { clusters: [{}] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).status).toBe(400);
      expect(Object.keys((e as HttpError).options.errors ?? {})).toEqual([
        'userId',
        'clusters[0].clusterName',
      ]);
    }
  });

  it('refuses empty, malformed and oversized bodies with 400, 400 and 413', () => {
    const status = (text: string) => {
      try {
        parseJsonText(text);
        return 200;
      } catch (e) {
        return (e as HttpError).status;
      }
    };
    expect(status('   ')).toBe(400);
    expect(status('{"a":')).toBe(400);
    expect(status(`"${'x'.repeat(1024 * 1024)}"`)).toBe(413);
    expect(status('"a-guid"')).toBe(200);
  });
});

describe('JSON answers', () => {
  it('write database decimals and bigints as plain JSON numbers', () => {
    expect(stringify({ cost: new Decimal('1234.5600'), n: 5n })).toBe('{"cost":1234.56,"n":5}');
  });
});
