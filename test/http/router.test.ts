import { describe, expect, it } from 'vitest';
import { json } from '../../shared/http/respond.js';
import { defineRoute, type HttpMethod } from '../../shared/http/route.js';
import { Router } from '../../shared/http/router.js';

const route = (name: string, method: HttpMethod, path: string) =>
  defineRoute({ name, service: 'auth', method, path, auth: 'none', handler: async () => json(200, {}) });

const router = new Router([
  route('byEmail', 'GET', 'User/{email}'),
  route('getAll', 'GET', 'User/GetAll'),
  route('deleteById', 'DELETE', 'User/delete/{userId}'),
  route('deleteSelf', 'DELETE', 'User/delete'),
  route('create', 'POST', 'User/create'),
]);

describe('router', () => {
  it('prefers a literal segment over a parameter whatever the registration order', () => {
    const m = router.match('GET', '/auth/api/User/GetAll');
    expect(m.kind === 'match' && m.route.name).toBe('getAll');
  });

  it('matches literals case-insensitively and keeps parameter values as sent', () => {
    const m = router.match('GET', '/AUTH/Api/user/Someone%40Example.com');
    expect(m.kind === 'match' && m.route.name).toBe('byEmail');
    expect(m.kind === 'match' && m.params).toEqual({ email: 'Someone@Example.com' });
    const all = router.match('get', '/auth/api/user/getall/');
    expect(all.kind === 'match' && all.route.name).toBe('getAll');
  });

  it('tells a known path with another method (405 with the allowed methods) from an unknown path (404)', () => {
    // GET also answers there: User/{email} takes "delete" as an email, as ASP.NET Core would.
    expect(router.match('PUT', '/auth/api/User/delete')).toEqual({
      kind: 'method-not-allowed',
      allow: ['DELETE', 'GET'],
    });
    expect(router.match('PUT', '/auth/api/User/create/x')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/auth/api/User/a/b/c')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/finops/api/User/GetAll')).toEqual({ kind: 'not-found' });
  });

  it('distinguishes routes by segment count', () => {
    const self = router.match('DELETE', '/auth/api/User/delete');
    const byId = router.match('DELETE', '/auth/api/User/delete/42');
    expect(self.kind === 'match' && self.route.name).toBe('deleteSelf');
    expect(byId.kind === 'match' && byId.params).toEqual({ userId: '42' });
  });

  it('treats a malformed percent-encoding as not found rather than throwing', () => {
    expect(router.match('GET', '/auth/api/User/%E0%A4%A')).toEqual({ kind: 'not-found' });
  });
});
