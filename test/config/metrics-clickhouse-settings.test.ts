import { describe, expect, it } from 'vitest';
import { loadConfig, type Settings } from '../../shared/config/index.js';

const BASE: Settings = { WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' };

describe('ClickHouse settings of the metrics store', () => {
  it('are off by default: no URL, so the PostgreSQL store', () => {
    const { metrics } = loadConfig(BASE);
    expect(metrics.Metrics__ClickHouseUrl).toBeUndefined();
    expect(metrics.Metrics__ClickHouseUser).toBe('default');
    expect(metrics.Metrics__ClickHouseDatabase).toBe('finwatch');
  });

  it('take an http(s) URL, a user, a password and a database', () => {
    const { metrics } = loadConfig({
      ...BASE,
      Metrics__ClickHouseUrl: 'https://ch.example.com:8443',
      Metrics__ClickHouseUser: 'finwatch',
      Metrics__ClickHousePassword: 'pw',
      Metrics__ClickHouseDatabase: 'fleet_metrics',
    });
    expect(metrics).toMatchObject({
      Metrics__ClickHouseUrl: 'https://ch.example.com:8443',
      Metrics__ClickHouseUser: 'finwatch',
      Metrics__ClickHousePassword: 'pw',
      Metrics__ClickHouseDatabase: 'fleet_metrics',
    });
  });

  it.each([
    ['Metrics__ClickHouseUrl', 'clickhouse://ch.example.com:9000', /http:\/\/ or https:\/\//],
    ['Metrics__ClickHouseUrl', 'https://user:secret@ch.example.com', /must not carry credentials/],
    ['Metrics__ClickHouseDatabase', 'metrics; DROP TABLE x', /plain identifier/],
  ])('refuse %s = %s by name', (name, value, message) => {
    expect(() => loadConfig({ ...BASE, [name]: value })).toThrow(new RegExp(`Setting ${name} `));
    expect(() => loadConfig({ ...BASE, [name]: value })).toThrow(message);
  });

  it('refuse a password that is still an unresolved Key Vault reference, without showing it', () => {
    const load = () =>
      loadConfig({
        ...BASE,
        Metrics__ClickHouseUrl: 'https://ch.example.com:8443',
        Metrics__ClickHousePassword:
          '@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/Metrics--ClickHousePassword/)',
      });
    expect(load).toThrow(/Metrics__ClickHousePassword holds an unresolved Key Vault reference/);
  });
});
