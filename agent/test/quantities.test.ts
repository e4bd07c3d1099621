import { describe, expect, it } from 'vitest';
import { parseQuantity, quantityOrNull } from '../src/quantities.js';

describe('Kubernetes quantities', () => {
  it.each([
    ['250m', 0.25],
    ['1', 1],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['123456789n', 0.123456789],
    ['1500u', 0.0015],
    ['2k', 2000],
    ['512M', 512e6],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['2E', 2e18],
    ['128Ki', 131072],
    ['100Mi', 104857600],
    ['4Gi', 4294967296],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
    ['1e3', 1000],
    ['12E-1', 1.2],
    [' 64Mi ', 67108864],
  ])('parses %s', (text, expected) => {
    expect(parseQuantity(text)).toBeCloseTo(expected, 12);
  });

  it.each(['', 'abc', '1Xi', '1 Gi', '1,5', 'Mi'])('rejects %j instead of returning 0', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
    expect(quantityOrNull(text)).toBeNull();
  });

  it('treats an absent quantity as null', () => {
    expect(quantityOrNull(undefined)).toBeNull();
  });
});
