import { z } from 'zod';
import { bool, int, list, optionalString, stringWithDefault, url } from './fields.js';

export const DEV_JWT_KEY = 'finwatch-development-only-signing-key-change-me-0123456789';

/** Settings of the auth service: the original's names (docs/settings.md) and finwatch's own. */
export const authSettingsSchema = z.object({
  Jwt__Key: optionalString(),
  Jwt__Issuers: list(['finwatch']),
  Jwt__Audiences: list(['finwatch']),
  Jwt__ExpiryMinutes: int(1440, 1, 525_600),
  /** Clock difference tolerated on exp/nbf/iat of every token; the original's ClockSkew is 0. */
  Jwt__ClockSkewSeconds: int(5, 0, 300),
  CloudAd__Instance: stringWithDefault('https://login.microsoftonline.com/'),
  CloudAd__TenantId: optionalString(),
  CloudAd__ClientId: optionalString(),
  CloudAd__ClientSecret: optionalString(),
  CloudAd__CallbackPath: stringWithDefault('/signin-oidc'),
  /**
   * Optional PEM file of an extra CA to trust for the directory's metadata, keys, token endpoint
   * and graph API (a private authority or a loopback stand-in in tests). Unset: system CAs only.
   */
  CloudAd__CaFile: optionalString(),
  /**
   * The console's "Sign in with Microsoft": shown when directory tokens are accepted (tenant and
   * client id set) unless this is false (an app registration without a single-page-app redirect).
   */
  Console__DirectorySignIn: bool(true),
  /** The app registration the console signs in as; unset: CloudAd__ClientId. */
  Console__DirectoryClientId: optionalString(),
  /** Scopes the console asks for; unset: api://<CloudAd__ClientId>/access_as_user. */
  Console__DirectoryScopes: list([]),
  DownstreamApi__BaseUrl: url(),
  DownstreamApi__Scopes: stringWithDefault('https://graph.microsoft.com/.default'),
  MOBILE_API_KEY: optionalString(),
  /** Auth/azure also needs a directory token (Authorization: Bearer) naming the same email. */
  MOBILE_API_KEY_STRICT: bool(false),
  ENABLED_LOGIN_AUTH: bool(true),
  DEMO_MODE: bool(false),
  DEMO_MONITOR_GROUP_ID: int(24, 1, 2_147_483_647),
  BLOCKED_DOMAINS: list(),
  ADMIN_EMAILS: list(),
  /**
   * One-time secret: while no administrator exists, User/create of an ADMIN_EMAILS address with
   * this value in X-Admin-Bootstrap makes it the first administrator. Unset: directory sign-in only.
   */
  ADMIN_BOOTSTRAP_SECRET: optionalString(),
  smtpHost: optionalString(),
  smtpPort: int(587, 1, 65535),
  smtpUsername: optionalString(),
  smtpPassword: optionalString(),
  smtpFrom: optionalString(),
  enableSsl: bool(true),
  SENDGRID_API_KEY: optionalString(),
  /** Base URL of the SendGrid API; tests point it at a loopback stand-in. */
  SENDGRID_API_URL: optionalString(),
  SwaggerUICredentials__username: optionalString(),
  SwaggerUICredentials__password: optionalString(),
  CacheSettings__CacheProvider: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim() : 'Memory'),
    z.enum(['Memory', 'None'], { error: 'must be Memory or None' }),
  ),
  /**
   * Where the reset email links (`?email=…&code=…` appended): an operator's own front end. Unset:
   * the auth service's own page, on WEBSITE_HOSTNAME (set by Azure).
   */
  PasswordReset__LinkUrl: url(),
  /** Reset-code requests per email address (known or not) per hour before 429. */
  PasswordReset__MaxPerEmailPerHour: int(3, 1, 1000),
  /** Reset-code requests per client address per hour before 429. */
  PasswordReset__MaxPerClientPerHour: int(20, 1, 100_000),
  /**
   * Key the sibling Notification service sends (X-Notification-Key or Authorization: Bearer) for
   * User/GetUserDeviceTokenListByGroupId/{groupId}. Unset: that list is not served.
   */
  Notification__ServiceKey: optionalString(),
  /** The original's behaviour: the push tokens of any monitor group to anyone, without a key. */
  Notification__AllowAnonymousDeviceTokens: bool(false),
  /** Password guesses per account and client address in 15 minutes before 429. */
  Login__MaxFailuresPerClient: int(10, 1, 1000),
  /** Account-wide failed sign-ins in 15 minutes after which addresses the account never signed in from wait. */
  Login__SlowDownAfterFailures: int(20, 1, 1_000_000),
  /** The longest such wait. */
  Login__MaxDelaySeconds: int(8, 0, 60),
  /** Days an address an account signed in from with its password stays exempt from the wait. */
  Login__KnownAddressDays: int(90, 1, 3650),
  /** The app's public host name; Azure App Service and Functions set it. */
  WEBSITE_HOSTNAME: optionalString(),
  /** Audit records older than this are pruned (weekly timer and opportunistically). */
  Audit__RetentionDays: int(365, 1, 36_500),
  'Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter':
    stringWithDefault('Warning'),
});

export type AuthSettings = z.infer<typeof authSettingsSchema>;
