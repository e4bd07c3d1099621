import { describe, expect, it } from 'vitest';
import {
  compareOrdinalIgnoreCase,
  matchTemplate,
  routeLikeFunctionsHost,
} from '../support/functions-host-routing.js';

// The stand-in for the Functions host's HTTP routing that test/package/host-routing.test.ts relies
// on, checked against the behaviour reported upstream.
describe('the Functions host routing model', () => {
  it('picks the first function by name, not the most specific template (azure-functions-host#9876)', () => {
    const functions = [
      { name: 'List', methods: ['GET'], route: 'Products/List' },
      { name: 'Details', methods: ['GET'], route: 'Products/{id}' },
    ];
    expect(routeLikeFunctionsHost(functions, 'GET', '/Products/List')).toEqual({
      kind: 'function',
      name: 'Details',
      params: { id: 'List' },
    });
  });

  it('lets optional parameters swallow a literal of a later-named function (azure-functions-nodejs-library#300)', () => {
    const functions = [
      { name: 'products', methods: ['GET'], route: 'accounts/{accountId?}/products/{productId?}' },
      { name: 'accounts', methods: ['GET'], route: 'accounts/{accountId?}/{action?}' },
    ];
    expect(routeLikeFunctionsHost(functions, 'GET', '/accounts/12345/products/')).toEqual({
      kind: 'function',
      name: 'accounts',
      params: { accountId: '12345', action: 'products' },
    });
  });

  it('orders names ordinal and case-insensitive, so "-" sorts before letters and case is ignored', () => {
    expect(compareOrdinalIgnoreCase('finops-analysisruns-get', 'finops-analysisruns-latest')).toBe(-1);
    expect(compareOrdinalIgnoreCase('auth-unmatched', 'auth-user-create')).toBe(-1);
    expect(compareOrdinalIgnoreCase('Zeta', 'alpha')).toBe(1);
    expect(compareOrdinalIgnoreCase('ALPHA', 'alpha')).toBe(0);
  });

  it('skips a function whose methods do not include the request method', () => {
    const functions = [
      { name: 'a-post', methods: ['POST'], route: 'items/{id}' },
      { name: 'b-get', methods: ['GET'], route: 'items/{id}' },
    ];
    expect(routeLikeFunctionsHost(functions, 'GET', '/items/3')).toMatchObject({ name: 'b-get' });
    expect(routeLikeFunctionsHost(functions, 'DELETE', '/items/3')).toEqual({ kind: 'host-not-found' });
  });

  it('matches literals case-insensitively and ignores a trailing slash', () => {
    expect(matchTemplate('auth/api/User/GetAll', '/AUTH/api/user/getall/')).toEqual({});
    expect(matchTemplate('auth/api/User/GetAll', '/auth/api/User/GetAll/extra')).toBeUndefined();
  });

  it('binds {x} to one non-empty, decoded segment', () => {
    expect(matchTemplate('u/{email}', '/u/a%40b.com')).toEqual({ email: 'a@b.com' });
    expect(matchTemplate('u/{email}', '/u/')).toBeUndefined();
    expect(matchTemplate('u/{email}', '/u/a/b')).toBeUndefined();
  });

  it('applies the int and guid constraints', () => {
    expect(matchTemplate('runs/{id:int}', '/runs/42')).toEqual({ id: '42' });
    expect(matchTemplate('runs/{id:int}', '/runs/latest')).toBeUndefined();
    expect(matchTemplate('runs/{id:int}', '/runs/2147483648')).toBeUndefined();
    expect(matchTemplate('s/{id:guid}', '/s/11111111-1111-4111-8111-111111111111')).toEqual({
      id: '11111111-1111-4111-8111-111111111111',
    });
    expect(matchTemplate('s/{id:guid}', '/s/11111111111141118111111111111111')).toEqual({
      id: '11111111111141118111111111111111',
    });
    expect(matchTemplate('s/{id:guid}', '/s/not-a-guid')).toBeUndefined();
  });

  it('lets {x?} be absent at the end only', () => {
    expect(matchTemplate('jobs/{id?}', '/jobs')).toEqual({});
    expect(matchTemplate('jobs/{id?}', '/jobs/7')).toEqual({ id: '7' });
  });

  it('binds {*x} to the rest of the path, slashes included, or to nothing', () => {
    expect(matchTemplate('finops/api/{*path}', '/finops/api/Resources/analysis/1/type/a%2Fb')).toEqual({
      path: 'Resources/analysis/1/type/a/b',
    });
    expect(matchTemplate('finops/api/{*path}', '/finops/api')).toEqual({ path: '' });
    expect(matchTemplate('finops/api/{*path}', '/auth/api/Version')).toBeUndefined();
  });
});
