import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../shared/auth/users.js';
import { PASSWORD, seedUser, tokenOf } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const GUID = '4b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f';

/**
 * Every create/update body of both services: a client that shows only `message` (the original's
 * web client) must see the first problem in words, and `errors` still lists every field.
 */
describe('validation messages name the first problem in plain words', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: UserRow;
  let adminToken: string;
  let userToken: string;

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false, settings: { MOBILE_API_KEY: 'mobile-key-0123456789' } });
    api = apiClient(host.url);
    admin = await seedUser(host, { isAdmin: true });
    adminToken = tokenOf(host, admin);
    userToken = tokenOf(host, await seedUser(host));
  });
  afterAll(async () => {
    await host?.close();
  });

  type Case = [string, string, string, 'none' | 'user' | 'admin', unknown, string, Record<string, string[]>?];
  const cases: Case[] = [
    [
      'a two-letter user name at registration',
      'POST',
      '/auth/api/User/create',
      'none',
      { username: 'al', userEmail: 'al@example.com', password: PASSWORD, repeatPassword: PASSWORD },
      'username must be at least 3 characters',
      { username: ['must be at least 3 characters'] },
    ],
    [
      'a malformed email at registration',
      'POST',
      '/auth/api/User/create',
      'none',
      { username: 'alice', userEmail: 'not-an-email', password: PASSWORD, repeatPassword: PASSWORD },
      'userEmail must be an email address',
    ],
    [
      'a short password at registration',
      'POST',
      '/auth/api/User/create',
      'none',
      { username: 'alice', userEmail: 'alice@example.com', password: 'short', repeatPassword: 'short' },
      'password must be at least 8 characters',
    ],
    [
      'a missing field at registration',
      'POST',
      '/auth/api/User/create',
      'none',
      { username: 'alice', userEmail: 'alice@example.com', password: PASSWORD },
      'repeatPassword is required',
    ],
    [
      'a user update without a GUID id',
      'PUT',
      '/auth/api/User/update',
      'admin',
      { id: 'nope', username: 'alice', email: 'a@example.com', isAdmin: false },
      'id must be a GUID',
    ],
    [
      'a user update whose admin flag is a string',
      'PUT',
      '/auth/api/User/update',
      'admin',
      { id: GUID, username: 'alice', email: 'a@example.com', isAdmin: 'yes' },
      'isAdmin must be true or false',
    ],
    [
      'a reset confirmation without a code',
      'POST',
      '/auth/api/User/resetPassword/confirm',
      'none',
      { email: 'a@example.com', newPassword: PASSWORD },
      'code is required',
    ],
    [
      'a password change to a short password',
      'POST',
      '/auth/api/User/updatePassword',
      'user',
      { currentPassword: PASSWORD, newPassword: 'abc' },
      'newPassword must be at least 8 characters',
    ],
    [
      'an empty device token',
      'POST',
      '/auth/api/User/UpdateUserDeviceToken',
      'user',
      { deviceToken: '  ' },
      'deviceToken is required',
    ],
    [
      'a cluster grant without a cluster',
      'POST',
      '/auth/api/UserClusters',
      'admin',
      { userId: GUID },
      'clusterName is required',
    ],
    [
      'a cluster list that is not a list',
      'POST',
      '/auth/api/UserClusters/CreateOrUpdate',
      'admin',
      { userId: GUID, clusters: 'c1' },
      'clusters is required (an empty list removes all)',
    ],
    [
      'a subscription grant that is not a GUID',
      'POST',
      '/auth/api/UserSubscriptions',
      'admin',
      { userId: GUID, subscriptionId: 'sub-1' },
      'subscriptionId must be a GUID',
    ],
    [
      'a subscription list with a bad entry',
      'POST',
      '/auth/api/UserSubscriptions/CreateOrUpdate',
      'admin',
      { userId: GUID, subscriptions: [GUID, 'x'] },
      'subscriptions[1] must be a GUID',
      { 'subscriptions[1]': ['must be a GUID'] },
    ],
    [
      'a user action with a bad time stamp',
      'POST',
      '/auth/api/UserAction/create',
      'user',
      { action: 'x', timeStamp: 'yesterday' },
      'timeStamp must be an ISO 8601 date and time',
    ],
    [
      'a group assignment with a fractional group',
      'POST',
      '/auth/api/UsersMonitorGroup/AssignUserToGroup',
      'user',
      { groupMonitorId: 1.5 },
      'groupMonitorId must be a whole number',
    ],
    [
      'an empty list of group assignments',
      'POST',
      '/auth/api/UsersMonitorGroup/create',
      'admin',
      [],
      'The request body must list at least one assignment',
    ],
    [
      'a group assignment list with a bad user id',
      'POST',
      '/auth/api/UsersMonitorGroup/create',
      'admin',
      [{ userId: 'u', groupMonitorId: 1 }],
      'request body[0].userId must be a GUID',
    ],
    [
      'a sign-in without a password',
      'POST',
      '/auth/api/Auth/login',
      'none',
      { username: 'alice' },
      'password is required',
    ],
    [
      'a mobile sign-in with a malformed email',
      'POST',
      '/auth/api/Auth/azure',
      'none',
      { email: 'x', apiKey: 'k' },
      'email must be an email address',
    ],
    [
      'a FinOps subscription with a negative budget',
      'POST',
      '/finops/api/Subscriptions',
      'user',
      { subscriptionId: GUID, budget: -5 },
      'budget must not be negative',
    ],
    [
      'a FinOps subscription with a budget that is not a number',
      'POST',
      '/finops/api/Subscriptions',
      'user',
      { subscriptionId: GUID, budget: 'lots' },
      'budget must be a number',
    ],
    [
      'a FinOps subscription update with a long description',
      'PUT',
      '/finops/api/Subscriptions/1',
      'user',
      { description: 'd'.repeat(1001) },
      'description must be at most 1000 characters',
    ],
    [
      'a FinOps subscription update that is not an object',
      'PUT',
      '/finops/api/Subscriptions/1',
      'user',
      [1],
      'The request body must be a JSON object',
    ],
    [
      'an analysis start with a malformed subscription id',
      'POST',
      '/finops/api/Analysis/start-async',
      'user',
      'not-a-guid',
      'Subscription ID must be a GUID',
    ],
  ];

  it.each(cases)('%s', async (_name, method, path, auth, json, message, errors) => {
    const token = auth === 'admin' ? adminToken : auth === 'user' ? userToken : undefined;
    const res = await api.call(method, path, { json, token });
    expect(isProblem(res, 400)).toBe(true);
    expect(res.body.message).toBe(message);
    expect(res.body.detail).toBe(message);
    expect(res.body.errors).toBeTypeOf('object');
    if (errors) expect(res.body.errors).toEqual(errors);
  });

  it('keeps every invalid field in errors while message names the first', async () => {
    const res = await api.post('/auth/api/User/create', {
      json: { username: 'al', userEmail: 'nope', password: 'x', repeatPassword: 'x' },
    });
    expect(res.body.message).toBe('username must be at least 3 characters');
    expect(res.body.errors).toEqual({
      username: ['must be at least 3 characters'],
      userEmail: ['must be an email address'],
      password: ['must be at least 8 characters'],
    });
  });

  it('names a bad route value the same way', async () => {
    const res = await api.get('/auth/api/User/GetById/not-a-guid', { token: adminToken });
    expect(isProblem(res, 400)).toBe(true);
    expect(res.body.message).toBe('userId must be a GUID');
  });
});
