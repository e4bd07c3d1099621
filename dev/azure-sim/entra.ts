/** The Entra endpoints MSAL calls: instance discovery, OpenID metadata and client-credentials tokens. */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';

const TOKEN_PREFIX = 'simtoken.';

/** Whether an Authorization header carries a token this simulator issued. */
export function hasSimToken(authorization: string): boolean {
  return authorization.startsWith(`Bearer ${TOKEN_PREFIX}`);
}

export function handleToken(
  res: ServerResponse,
  tenant: string,
  body: string,
  credentials: { clientId: string; clientSecret: string } | undefined,
) {
  const form = new URLSearchParams(body);
  if (form.get('grant_type') !== 'client_credentials') {
    return sendJson(res, 400, {
      error: 'unsupported_grant_type',
      error_description: 'AADSTS70003: The simulator supports client_credentials only.',
    });
  }
  const clientId = form.get('client_id') ?? '';
  if (
    credentials &&
    (clientId !== credentials.clientId || form.get('client_secret') !== credentials.clientSecret)
  ) {
    return sendJson(res, 401, {
      error: 'invalid_client',
      error_description: 'AADSTS7000215: Invalid client secret provided.',
    });
  }
  const payload = {
    tid: tenant,
    appid: clientId,
    scope: form.get('scope'),
    n: randomBytes(6).toString('hex'),
  };
  return sendJson(res, 200, {
    token_type: 'Bearer',
    expires_in: 3599,
    ext_expires_in: 3599,
    access_token: TOKEN_PREFIX + Buffer.from(JSON.stringify(payload)).toString('base64url'),
  });
}

export function handleMetadata(res: ServerResponse, url: URL, tenant: string, baseUrl: string) {
  if (url.pathname.toLowerCase().endsWith('/discovery/instance')) {
    const hostName = new URL(baseUrl).host;
    return sendJson(res, 200, {
      tenant_discovery_endpoint: `${baseUrl}/${tenant}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: hostName, preferred_cache: hostName, aliases: [hostName] }],
    });
  }
  return sendJson(res, 200, {
    token_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    jwks_uri: `${baseUrl}/${tenant}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer: `${baseUrl}/${tenant}/v2.0`,
    request_uri_parameter_supported: false,
    userinfo_endpoint: `${baseUrl}/oidc/userinfo`,
    authorization_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/authorize`,
    device_authorization_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/devicecode`,
    http_logout_supported: true,
    frontchannel_logout_supported: true,
    end_session_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/logout`,
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'tid'],
    tenant_region_scope: 'EU',
    cloud_instance_name: 'microsoftonline.com',
  });
}
