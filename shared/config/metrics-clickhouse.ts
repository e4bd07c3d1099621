import { z } from 'zod';
import { int, optionalString, stringWithDefault } from './fields.js';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/**
 * The ClickHouse engine of the metrics store: set Metrics__ClickHouseUrl and the metrics service
 * stores in ClickHouse instead of PostgreSQL. Part of the metrics settings.
 */
export const clickHouseSettingsShape = {
  /** The server's HTTP interface, e.g. https://ch.example.com:8443 (unset: the PostgreSQL store). */
  Metrics__ClickHouseUrl: z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine((u) => !new URL(u).username && !new URL(u).password, {
        message: 'must not carry credentials (use Metrics__ClickHouseUser and Metrics__ClickHousePassword)',
      })
      .optional(),
  ) as z.ZodType<string | undefined>,
  /** The ClickHouse user. */
  Metrics__ClickHouseUser: stringWithDefault('default'),
  /** Its password (a Key Vault reference in Azure). */
  Metrics__ClickHousePassword: optionalString(),
  /** The database holding the metrics tables; created at startup when missing. */
  Metrics__ClickHouseDatabase: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a plain identifier (letters, digits, _)')
      .default('finwatch'),
  ) as z.ZodType<string>,
  /** Longest one ClickHouse statement may take, in seconds. */
  Metrics__ClickHouseRequestTimeoutSeconds: int(30, 1, 600),
};
