import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { seedUser, tokenOf } from './helpers.js';

const KEY = 'notification-service-key-for-tests-0123';
const GROUP = 4242;

async function seedGroupTokens(host: TestHost): Promise<void> {
  const user = await seedUser(host);
  await host.services.prisma.userMonitorGroup.create({ data: { userId: user.id, groupMonitorId: GROUP } });
  await host.services.prisma.userDeviceToken.createMany({
    data: [
      { userId: user.id, deviceToken: 'push-a' },
      { userId: user.id, deviceToken: 'push-b' },
    ],
  });
}

const path = `/auth/api/User/GetUserDeviceTokenListByGroupId/${GROUP}`;

// The push tokens of any monitor group once went to anyone (the route was anonymous and group
// ids are small integers).
describe('push tokens by group are for the Notification service', () => {
  let keyed: TestHost;
  let open: TestHost;
  let unset: TestHost;
  beforeAll(async () => {
    [keyed, open, unset] = await Promise.all([
      startTestHost({ queueWorker: false, settings: { Notification__ServiceKey: KEY } }),
      startTestHost({ queueWorker: false, settings: { Notification__AllowAnonymousDeviceTokens: 'true' } }),
      startTestHost({ queueWorker: false }),
    ]);
    await Promise.all([seedGroupTokens(keyed), seedGroupTokens(open), seedGroupTokens(unset)]);
  });
  afterAll(async () => {
    await Promise.all([keyed?.close(), open?.close(), unset?.close()]);
  });

  it('answers the tokens to the key, in its header or as a bearer token, and 401 to anyone else', async () => {
    const api = apiClient(keyed.url);
    expect((await api.get(path, { headers: { 'X-Notification-Key': KEY } })).body).toEqual([
      'push-a',
      'push-b',
    ]);
    expect((await api.get(path, { token: KEY })).body).toEqual(['push-a', 'push-b']);
    const admin = tokenOf(keyed, await seedUser(keyed, { isAdmin: true }));
    for (const refused of [
      await api.get(path),
      await api.get(path, { headers: { 'X-Notification-Key': `${KEY}x` } }),
      await api.get(path, { token: admin }),
      // The key is checked before the group id: nothing about the route is told to a stranger.
      await api.get('/auth/api/User/GetUserDeviceTokenListByGroupId/not-a-number'),
    ]) {
      expect(isProblem(refused, 401)).toBe(true);
      expect(refused.text).not.toContain('push-a');
    }
  });

  it('serves no one without a configured key, and anyone only with the explicit opt-in', async () => {
    const refused = await apiClient(unset.url).get(path, { headers: { 'X-Notification-Key': '' } });
    expect(isProblem(refused, 401)).toBe(true);
    expect(refused.body.detail).toContain('Notification__ServiceKey');
    expect((await apiClient(open.url).get(path)).body).toEqual(['push-a', 'push-b']);
  });
});
