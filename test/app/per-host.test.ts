import { describe, expect, it } from 'vitest';
import { perHost } from '../../shared/app/per-host.js';

describe('perHost', () => {
  it('makes one value per owner, on first use, from that owner', () => {
    const made: string[] = [];
    const cacheOf = perHost((owner: { name: string }) => {
      made.push(owner.name);
      return new Map<string, number>();
    });
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(made).toEqual([]);
    const first = cacheOf(a);
    first.set('k', 1);
    expect(cacheOf(a)).toBe(first);
    expect(cacheOf(b)).not.toBe(first);
    expect(cacheOf(b).get('k')).toBeUndefined();
    expect(made).toEqual(['a', 'b']);
  });

  it('keeps a falsy value made for an owner instead of making it again', () => {
    let calls = 0;
    const countOf = perHost((_owner: object) => {
      calls++;
      return 0;
    });
    const owner = {};
    expect(countOf(owner)).toBe(0);
    expect(countOf(owner)).toBe(0);
    expect(calls).toBe(1);
  });
});
