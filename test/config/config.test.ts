import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readSettings } from '../../shared/config/index.js';

const dev = { WEBAPP_ENVIRONMENT: 'Development' };
const prodOk = {
  WEBAPP_ENVIRONMENT: 'Production',
  // Made per run: a key written in the repository is refused in Production (published-keys.ts).
  Jwt__Key: `production-key-${randomBytes(24).toString('hex')}`,
  ConnectionStrings__SqlConnectionString: 'postgresql://u:p@db.example:5432/finwatch',
};

function errorOf(settings: Record<string, string>): string {
  try {
    loadConfig(settings);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  return 'no error';
}

describe('configuration', () => {
  it('applies the documented defaults in Development', () => {
    const c = loadConfig(dev);
    expect(c.isDevelopment).toBe(true);
    expect(c.platform.PORT).toBe(7071);
    expect(c.platform.DATA_DIR).toBe('./data');
    expect(c.auth.ENABLED_LOGIN_AUTH).toBe(true);
    expect(c.auth.Jwt__ExpiryMinutes).toBe(1440);
    expect(c.auth.DEMO_MONITOR_GROUP_ID).toBe(24);
    expect(c.finops.Cloud__CostQueryType).toBe('ActualCost');
    expect(c.finops.WeeklyAnalysis__DayOfWeekUtc).toBe('Sunday');
    expect(c.finops.WeeklyAnalysis__HourUtc).toBe(2);
    expect(c.finops.CostQuery__PaceScale).toBe(1);
  });

  it('is Production unless told otherwise, and then requires a real Jwt__Key and a database URL', () => {
    expect(errorOf({})).toMatch(/^Setting Jwt__Key is required in Production/);
    expect(errorOf({ WEBAPP_ENVIRONMENT: 'Production', Jwt__Key: 'fakeKey' })).toMatch(
      /Jwt__Key must be a real secret/,
    );
    expect(errorOf({ ...prodOk, ConnectionStrings__SqlConnectionString: '' })).toMatch(
      /ConnectionStrings__SqlConnectionString is required/,
    );
    expect(loadConfig(prodOk).isDevelopment).toBe(false);
  });

  it('names the one invalid setting in a single line without echoing secrets', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { ...dev, WeeklyAnalysis__HourUtc: '24' },
        /^Setting WeeklyAnalysis__HourUtc \("24"\) must be at most 23\.$/,
      ],
      [
        { ...dev, WeeklyAnalysis__DayOfWeekUtc: 'Funday' },
        /WeeklyAnalysis__DayOfWeekUtc .* English day name/,
      ],
      [{ ...dev, Cloud__CostQueryType: 'Usage' }, /Cloud__CostQueryType .* ActualCost or AmortizedCost/],
      [{ ...dev, Cloud__SubscriptionIds: 'not-a-guid' }, /Cloud__SubscriptionIds .* subscription GUID/],
      [{ ...dev, ENABLED_LOGIN_AUTH: 'maybe' }, /ENABLED_LOGIN_AUTH .* true or false/],
      [{ ...dev, PORT: 'eighty' }, /PORT .* whole number/],
      [{ ...dev, WEBAPP_ENVIRONMENT: 'Staging' }, /WEBAPP_ENVIRONMENT .* Development or Production/],
      [{ ...dev, AI__ApiUrl: 'not a url' }, /AI__ApiUrl .* absolute URL/],
      [{ ...dev, Jwt__Key: 'short-secret' }, /^Setting Jwt__Key must be at least 32 characters/],
      [{ ...dev, CostExports__Schedule: '0 30 */6 * *' }, /CostExports__Schedule .* six fields/],
      [
        { ...dev, CostExports__Schedule: '0 61 * * * *' },
        /CostExports__Schedule .* not a valid NCRONTAB expression .*0-59/,
      ],
    ];
    for (const [settings, pattern] of cases) {
      const message = errorOf(settings);
      expect(message).toMatch(pattern);
      expect(message).not.toContain('\n');
    }
    expect(errorOf({ ...dev, Jwt__Key: 'short-secret' })).not.toContain('short-secret');
  });

  it('parses lists, booleans and day names leniently', () => {
    const c = loadConfig({
      ...dev,
      BLOCKED_DOMAINS: ' evil.com, ,spam.org ',
      DEMO_MODE: 'TRUE',
      WeeklyAnalysis__DayOfWeekUtc: 'monday',
      Cloud__SubscriptionIds: '11111111-1111-4111-8111-111111111111, 22222222-2222-4222-8222-222222222222',
    });
    expect(c.auth.BLOCKED_DOMAINS).toEqual(['evil.com', 'spam.org']);
    expect(c.auth.DEMO_MODE).toBe(true);
    expect(c.finops.WeeklyAnalysis__DayOfWeekUtc).toBe('Monday');
    expect(c.finops.Cloud__SubscriptionIds).toHaveLength(2);
  });

  it('reads local.settings.json Values under the environment, which wins', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fw-settings-'));
    writeFileSync(
      path.join(dir, 'local.settings.json'),
      JSON.stringify({ IsEncrypted: false, Values: { PORT: '8080', DEMO_MODE: 'true', smtpPort: 25 } }),
    );
    const s = readSettings({ PORT: '9090' }, dir);
    expect(s.PORT).toBe('9090');
    expect(s.DEMO_MODE).toBe('true');
    expect(s.smtpPort).toBe('25');
  });

  it('reads a dotted setting under the name Linux app settings give it', () => {
    const s = readSettings(
      { Logging__LogLevel__Vendor_IdentityModel_LoggingExtensions_IdentityLoggerAdapter: 'Error' },
      tmpdir(),
    );
    expect(
      loadConfig({ ...dev, ...s }).auth[
        'Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter'
      ],
    ).toBe('Error');
  });

  it('refuses a local.settings.json that is not JSON with a clear message', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fw-settings-'));
    writeFileSync(path.join(dir, 'local.settings.json'), '{ nope');
    expect(() => readSettings({}, dir)).toThrow(/local.settings.json is not valid JSON/);
  });
});

describe('Key Vault references App Service could not resolve', () => {
  const reference = '@Microsoft.KeyVault(SecretUri=https://finwatch-kv.vault.azure.net/secrets/jwt-key/)';

  it.each([
    'Jwt__Key',
    'ConnectionStrings__SqlConnectionString',
    'CloudAd__ClientSecret',
    'Cloud__ClientSecret',
    'MOBILE_API_KEY',
    'AI__ApiKey',
    'smtpPassword',
    'SENDGRID_API_KEY',
    'SwaggerUICredentials__password',
    'AzureWebJobsStorage',
  ])('stop startup with a message naming %s', (name) => {
    const message = errorOf({ ...prodOk, [name]: reference });
    expect(message).toMatch(new RegExp(`^Setting ${name} holds an unresolved Key Vault reference`));
    // The reference itself (vault and secret names) is not echoed.
    expect(message).not.toContain('finwatch-kv');
  });

  it('are recognised whatever the spacing and case App Service kept', () => {
    expect(errorOf({ ...prodOk, Jwt__Key: '  @microsoft.keyvault (VaultName=kv;SecretName=jwt)' })).toMatch(
      /^Setting Jwt__Key holds an unresolved Key Vault reference/,
    );
  });

  it('leave resolved values alone, even ones that mention Key Vault', () => {
    const c = loadConfig({ ...prodOk, smtpPassword: 'not @Microsoft.KeyVault(...) at the start' });
    expect(c.auth.smtpPassword).toBe('not @Microsoft.KeyVault(...) at the start');
  });
});
