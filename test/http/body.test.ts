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

  it('renames a record whose keys follow records spelled as the schema, and an array element after unchanged ones', () => {
    const record = z.object({
      pod: z.string(),
      cores: z.number(),
      labels: z.object({ app: z.string() }).optional(),
    });
    // Records spelled as the schema, in one key order, then ones that differ by a name, a key
    // more, a key fewer or an order: each is checked on its own, not taken for the one before.
    const asSent = { pod: 'a', cores: 1 };
    expect(normalizeKeys(asSent, record)).toBe(asSent);
    expect(normalizeKeys({ pod: 'b', cores: 2 }, record)).toEqual({ pod: 'b', cores: 2 });
    expect(normalizeKeys({ pod: 'c', Cores: 3 }, record)).toEqual({ pod: 'c', cores: 3 });
    expect(normalizeKeys({ pod: 'd', cores: 4, CORES: 5 }, record)).toEqual({ pod: 'd', cores: 4 });
    expect(normalizeKeys({ POD: 'e' }, record)).toEqual({ pod: 'e' });
    expect(normalizeKeys({ Cores: 6, pod: 'f' }, record)).toEqual({ cores: 6, pod: 'f' });
    expect(normalizeKeys({ pod: 'g', cores: 7, labels: { APP: 'x' } }, record)).toEqual({
      pod: 'g',
      cores: 7,
      labels: { app: 'x' },
    });
    expect(normalizeKeys({ pod: 'h', cores: 8 }, record)).toEqual({ pod: 'h', cores: 8 });
    // An array: the elements before the first renamed one are kept, the rest renamed too.
    const list = z.array(record);
    const sent = [
      { pod: 'a', cores: 1 },
      { pod: 'b', cores: 2 },
      { POD: 'c', cores: 3 },
      { pod: 'd', CORES: 4 },
    ];
    expect(normalizeKeys(sent, list)).toEqual([
      { pod: 'a', cores: 1 },
      { pod: 'b', cores: 2 },
      { pod: 'c', cores: 3 },
      { pod: 'd', cores: 4 },
    ]);
    expect(sent[2]).toEqual({ POD: 'c', cores: 3 });
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
