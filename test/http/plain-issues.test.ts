import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../../shared/http/body.js';
import type { HttpError } from '../../shared/http/problem.js';

function messageOf(schema: z.ZodType, value: unknown): string {
  try {
    validate(schema, value, 'request body');
  } catch (e) {
    return (e as HttpError).detail;
  }
  throw new Error('expected a validation failure');
}

describe('plain validation messages', () => {
  const schema = z.object({
    name: z.string().min(3).max(5),
    count: z.number().int().positive().optional(),
    kind: z.enum(['a', 'b']).optional(),
    tags: z.array(z.string()).min(2).optional(),
    amount: z.union([z.number(), z.string().regex(/^\d+$/, 'must be digits')]).optional(),
    when: z.iso.datetime().optional(),
  });
  const ok = { name: 'abc' };

  it('names the field and the rule in words', () => {
    expect(messageOf(schema, { name: 'ab' })).toBe('name must be at least 3 characters');
    expect(messageOf(schema, { name: 'abcdef' })).toBe('name must be at most 5 characters');
    expect(messageOf(schema, {})).toBe('name is required');
    expect(messageOf(schema, { name: 3 })).toBe('name must be a string');
    expect(messageOf(schema, { ...ok, count: 1.5 })).toBe('count must be a whole number');
    expect(messageOf(schema, { ...ok, count: 0 })).toBe('count must be more than 0');
    expect(messageOf(schema, { ...ok, kind: 'c' })).toBe('kind must be one of "a", "b"');
    expect(messageOf(schema, { ...ok, tags: ['x'] })).toBe('tags must list at least 2 items');
    expect(messageOf(schema, { ...ok, tags: ['x', 1] })).toBe('tags[1] must be a string');
    expect(messageOf(schema, { ...ok, when: 'soon' })).toBe('when must be an ISO 8601 date and time');
  });

  it('takes the closest option of a union, or lists the types it accepts', () => {
    expect(messageOf(schema, { ...ok, amount: 'x1' })).toBe('amount must be digits');
    expect(messageOf(schema, { ...ok, amount: true })).toBe('amount must be a number or a string');
  });

  it('speaks of the body itself when the problem is at its root', () => {
    expect(messageOf(schema, [])).toBe('The request body must be a JSON object');
    expect(messageOf(z.array(z.object({ id: z.string() })), [{}])).toBe('request body[0].id is required');
  });

  it('keeps a message a schema wrote as a full sentence', () => {
    expect(messageOf(z.object({ a: z.string().min(1, 'Action is required') }), { a: '' })).toBe(
      'Action is required',
    );
  });
});
