import { describe, expect, it } from 'vitest';
import { checkSwaggerCredentials, constantTimeEquals } from '../../shared/auth/swagger-gate.js';
import { type AppConfig, loadConfig } from '../../shared/config/index.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const config = (settings: Record<string, string>): AppConfig =>
  loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://', ...settings });

describe('Swagger UI basic-auth gate', () => {
  const configured = config({
    SwaggerUICredentials__username: 'docs',
    SwaggerUICredentials__password: 's3cret:with:colons',
  });

  it('lets the configured credentials in', () => {
    expect(checkSwaggerCredentials(configured, basic('docs', 's3cret:with:colons'))).toBe('ok');
    expect(
      checkSwaggerCredentials(
        configured,
        `basic   ${Buffer.from('docs:s3cret:with:colons').toString('base64')}`,
      ),
    ).toBe('ok');
  });

  it('refuses wrong, partial, malformed or missing credentials', () => {
    for (const header of [
      basic('docs', 'wrong'),
      basic('other', 's3cret:with:colons'),
      basic('docs', ''),
      basic('', ''),
      'Bearer abc',
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      '',
      undefined,
      null,
    ]) {
      expect(checkSwaggerCredentials(configured, header)).toBe('refused');
    }
  });

  it('is refused, not open, when SwaggerUICredentials__* are unset or half set', () => {
    expect(checkSwaggerCredentials(config({}), basic('', ''))).toBe('refused');
    expect(checkSwaggerCredentials(config({}), undefined)).toBe('refused');
    const half = config({ SwaggerUICredentials__username: 'docs' });
    expect(checkSwaggerCredentials(half, basic('docs', ''))).toBe('refused');
  });

  it('compares in constant time over hashes, whatever the lengths', () => {
    expect(constantTimeEquals('a', 'a')).toBe(true);
    expect(constantTimeEquals('a', 'a'.repeat(1000))).toBe(false);
  });
});
