/**
 * The Azure simulator: an HTTPS server on loopback speaking the wire shapes of the Entra token
 * endpoint, subscription lookup, Resource Graph and Cost Management Query, so the real SDK clients
 * work against it unchanged (through their `endpoint` / `$host` / `baseUri` and `authorityHost`
 * options). It is HTTPS because MSAL refuses a non-https authority and the SDK's bearer-token policy
 * refuses plain http; the certificate in ./tls is self-signed for localhost/127.0.0.1 (dev only) and
 * exported as `ca` so clients can trust it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CostQueryError, type CostTable, parseCostQuery, reorderColumns, runCostQuery } from './cost.js';
import { CostQuota, type CostQuotaOptions, monthsSpanned } from './cost-quota.js';
import { generateSubscription, type SimSubscription } from './data.js';
import { FaultState, type FaultSwitches, type SimEndpoint, throttleHeaders } from './faults.js';
import { handleGraph } from './resource-graph.js';
import { answerRetailPrices } from './retail-prices.js';

export const SIM_CA: string = readFileSync(new URL('./tls/sim-cert.pem', import.meta.url), 'utf8');
const SIM_KEY: string = readFileSync(new URL('./tls/sim-key.pem', import.meta.url), 'utf8');

export interface AzureSimulatorOptions {
  port?: number;
  host?: string;
  /** Resources per subscription (default 60). */
  resourcesPerSubscription?: number;
  /** Cost API rows per page (default 5,000, as the service). */
  costPageSize?: number;
  /** Resource Graph's largest page (default 1,000, as the service). */
  graphMaxPageSize?: number;
  seed?: number;
  /** Add a positive and a negative case for every waste rule to each subscription (waste-catalogue.ts). */
  wasteCatalogue?: boolean;
  /** Give each subscription an AKS cluster with its node resource group (aks.ts). */
  aks?: boolean;
  /** The simulator's clock (default: the real one). */
  now?: () => Date;
  /** Enforce Cost Management's documented tenant QPU quota (cost-quota.ts); off by default. */
  costQuota?: CostQuotaOptions;
  /** When set, the token endpoint accepts only these credentials. */
  credentials?: { clientId: string; clientSecret: string };
  /** Items per page of the Retail Prices API (default 100, as the service). */
  retailPricesPageSize?: number;
}

export interface SimRequest {
  method: string;
  path: string;
  url: string;
  endpoint: SimEndpoint;
  status: number;
  at: number;
  durationMs: number;
  /** The ClientType request header (cost queries are counted per client type). */
  clientType?: string;
}

export interface SimStats {
  concurrentCostQueries: number;
  maxConcurrentCostQueries: number;
  requests: SimRequest[];
  /** Requests per endpoint. */
  counts(): Record<SimEndpoint, number>;
  reset(): void;
}

export interface AzureSimulator {
  /** Base URL, e.g. https://127.0.0.1:41234: the ARM endpoint and the authority host. */
  url: string;
  /** PEM of the simulator's self-signed certificate, to trust in clients (`tlsOptions.ca`). */
  ca: string;
  stats: SimStats;
  faults: FaultSwitches;
  /** The synthetic subscription behind an id (the same data the endpoints serve). */
  subscription(subscriptionId: string): SimSubscription;
  /** Multiplies every retail price from now on (1 = the simulator's list): a price change. */
  setRetailPriceFactor(factor: number): void;
  close(): Promise<void>;
}

const TOKEN_PREFIX = 'simtoken.';

export async function startAzureSimulator(opts: AzureSimulatorOptions = {}): Promise<AzureSimulator> {
  const host = opts.host ?? '127.0.0.1';
  const now = opts.now ?? (() => new Date());
  const seed = opts.seed ?? 1;
  const resources = opts.resourcesPerSubscription ?? 60;
  const costPageSize = opts.costPageSize ?? 5000;
  const graphMaxPageSize = opts.graphMaxPageSize ?? 1000;
  const faults = new FaultState();
  const quota = opts.costQuota ? new CostQuota(opts.costQuota) : undefined;
  const subs = new Map<string, SimSubscription>();
  const costResults = new Map<string, { subscriptionId: string; result: CostTable }>();
  let baseUrl = '';
  let retailPriceFactor = 1;

  const stats: SimStats = {
    concurrentCostQueries: 0,
    maxConcurrentCostQueries: 0,
    requests: [],
    counts() {
      const c = { token: 0, metadata: 0, subscription: 0, graph: 0, cost: 0, prices: 0, admin: 0, other: 0 };
      for (const r of this.requests) c[r.endpoint]++;
      return c;
    },
    reset() {
      this.requests = [];
      this.maxConcurrentCostQueries = this.concurrentCostQueries;
    },
  };

  const subscription = (id: string): SimSubscription => {
    const key = id.toLowerCase();
    let sub = subs.get(key);
    if (!sub) {
      sub = generateSubscription(id, {
        resources,
        seed,
        now: now(),
        ...(opts.wasteCatalogue ? { wasteCatalogue: true } : {}),
        ...(opts.aks ? { aks: true } : {}),
      });
      if (subs.size >= 16) subs.delete(subs.keys().next().value as string);
      subs.set(key, sub);
    }
    return sub;
  };

  const server = createServer({ key: SIM_KEY, cert: SIM_CA }, (req, res) => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'https://sim');
    const endpoint = classify(req.method ?? 'GET', url.pathname);
    res.on('finish', () => {
      stats.requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        url: req.url ?? '/',
        endpoint,
        status: res.statusCode,
        at: started,
        durationMs: Date.now() - started,
        ...(typeof req.headers['clienttype'] === 'string' ? { clientType: req.headers['clienttype'] } : {}),
      });
    });
    const isCost = endpoint === 'cost';
    if (isCost) {
      stats.concurrentCostQueries++;
      stats.maxConcurrentCostQueries = Math.max(stats.maxConcurrentCostQueries, stats.concurrentCostQueries);
      res.on('close', () => {
        stats.concurrentCostQueries--;
      });
    }
    handle(req, res, url, endpoint).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { code: 'InternalServerError', message: String(err) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, endpoint: SimEndpoint) {
    const body = await readBody(req);
    const delay = faults.delayFor(endpoint);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (endpoint === 'admin') return handleAdmin(req, res, url, body);
    const decision = faults.decide(endpoint);
    if (decision.kind === 'throttle') {
      const headers = throttleHeaders(decision.opts, now());
      return sendJson(
        res,
        429,
        { error: { code: '429', message: 'Too many requests. Please retry.' } },
        headers,
      );
    }
    if (decision.kind === 'fail' && decision.status === 0) {
      req.socket.destroy(); // a dropped connection (ECONNRESET on the client)
      return;
    }
    if (decision.kind === 'fail') {
      return sendJson(res, decision.status, {
        error: { code: `Simulated${decision.status}`, message: `Simulated failure (${decision.status}).` },
      });
    }
    const segments = url.pathname.split('/').filter(Boolean);
    switch (endpoint) {
      case 'token':
        return handleToken(res, segments[0] ?? 'common', body);
      case 'metadata':
        return handleMetadata(res, url, segments[0] ?? 'common');
      case 'other':
        return sendJson(res, 404, { error: { code: 'NotFound', message: `No route for ${url.pathname}` } });
      case 'prices': {
        // Anonymous, as the real service.
        const out = answerRetailPrices(url, baseUrl, {
          pageSize: opts.retailPricesPageSize ?? 100,
          factor: retailPriceFactor,
        });
        return sendJson(res, out.status, out.body);
      }
    }
    // ARM endpoints need a token we issued.
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith(`Bearer ${TOKEN_PREFIX}`)) {
      return sendJson(
        res,
        401,
        { error: { code: 'AuthenticationFailed', message: 'Authentication failed.' } },
        { 'www-authenticate': `Bearer authorization_uri="${baseUrl}/common", error="invalid_token"` },
      );
    }
    if (endpoint === 'subscription') return handleSubscription(res, segments[1] ?? '');
    if (endpoint === 'graph') {
      const out = handleGraph(parseJson(body), { subscription, maxPageSize: graphMaxPageSize });
      return sendJson(res, out.status, out.body, out.status === 200 ? faults.graphQuotaHeaders() : {});
    }
    const clientType = req.headers['clienttype'];
    return handleCost(res, url, segments[1] ?? '', body, typeof clientType === 'string' ? clientType : '');
  }

  function handleToken(res: ServerResponse, tenant: string, body: string) {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'client_credentials') {
      return sendJson(res, 400, {
        error: 'unsupported_grant_type',
        error_description: 'AADSTS70003: The simulator supports client_credentials only.',
      });
    }
    const clientId = form.get('client_id') ?? '';
    if (
      opts.credentials &&
      (clientId !== opts.credentials.clientId || form.get('client_secret') !== opts.credentials.clientSecret)
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

  function handleMetadata(res: ServerResponse, url: URL, tenant: string) {
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

  function handleSubscription(res: ServerResponse, id: string) {
    const sub = subscription(id);
    return sendJson(res, 200, {
      id: `/subscriptions/${sub.subscriptionId}`,
      authorizationSource: 'RoleBased',
      managedByTenants: [],
      subscriptionId: sub.subscriptionId,
      tenantId: sub.tenantId,
      displayName: sub.displayName,
      state: 'Enabled',
      subscriptionPolicies: {
        locationPlacementId: 'Public_2014-09-01',
        quotaId: 'PayAsYouGo_2014-09-01',
        spendingLimit: 'Off',
      },
    });
  }

  function handleCost(
    res: ServerResponse,
    url: URL,
    subscriptionId: string,
    body: string,
    clientType: string,
  ) {
    const apiVersion = url.searchParams.get('api-version');
    if (!apiVersion)
      return sendJson(res, 400, { error: { code: 'MissingApiVersionParameter', message: 'api-version' } });
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(body);
    } catch {
      return sendJson(res, 400, {
        error: { code: 'BadRequest', message: 'The request body is not valid JSON.' },
      });
    }
    let quotaHeaders: Record<string, string> | undefined;
    if (quota) {
      let qpu = 1;
      try {
        const q = parseCostQuery(parsedBody, now());
        qpu = monthsSpanned(q.fromDay, q.toDay);
      } catch {
        // an invalid query is answered 400 below and costs 1 QPU
      }
      const decision = quota.charge(clientType, qpu);
      if (!decision.ok) {
        return sendJson(
          res,
          429,
          { error: { code: '429', message: 'Too many requests. Please retry.' } },
          {
            ...decision.headers,
            'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': String(decision.retryAfterSeconds),
          },
        );
      }
      quotaHeaders = decision.headers;
    }
    let result: CostTable;
    let offset = 0;
    let cacheId: string;
    const skipToken = url.searchParams.get('$skiptoken');
    if (skipToken !== null) {
      // URLSearchParams decodes once, as the service does: a token that was encoded twice no longer
      // matches, and neither does one whose '+' was sent raw (it decodes to a space).
      const m = /^sk\+([0-9a-f]+)\/(\d+)==$/.exec(skipToken);
      const cached = m ? costResults.get(m[1]!) : undefined;
      if (!m || !cached || cached.subscriptionId.toLowerCase() !== subscriptionId.toLowerCase()) {
        return sendJson(res, 400, {
          error: { code: 'BadRequest', message: `Invalid $skiptoken '${skipToken}'.` },
        });
      }
      cacheId = m[1]!;
      offset = Number(m[2]);
      result = cached.result;
    } else {
      try {
        const q = parseCostQuery(parsedBody, now());
        result = runCostQuery(subscription(subscriptionId), q);
      } catch (err) {
        if (err instanceof CostQueryError)
          return sendJson(res, 400, { error: { code: err.code, message: err.message } });
        throw err;
      }
      cacheId = randomBytes(8).toString('hex');
      if (costResults.size >= 64) costResults.delete(costResults.keys().next().value as string);
      costResults.set(cacheId, { subscriptionId, result });
    }
    const end = offset + costPageSize;
    const nextLink =
      end < result.length
        ? `${baseUrl}/subscriptions/${subscriptionId}/providers/Microsoft.CostManagement/query?api-version=${apiVersion}&$skiptoken=${encodeURIComponent(`sk+${cacheId}/${end}==`)}`
        : null;
    const page = { columns: result.columns, rows: result.slice(offset, end) };
    const shown = faults.columnOrder === 'real' ? page : reorderColumns(page, faults.columnOrder);
    return sendJson(
      res,
      200,
      {
        id: `subscriptions/${subscriptionId}/providers/Microsoft.CostManagement/query/${cacheId}`,
        name: cacheId,
        type: 'Microsoft.CostManagement/query',
        location: null,
        sku: null,
        eTag: null,
        tags: null,
        properties: { nextLink, columns: shown.columns, rows: shown.rows },
      },
      {
        'x-ms-ratelimit-microsoft.costmanagement-qpu-consumed': '1',
        'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining':
          'QueriesPerHour:597,QueriesPerMin:57,QueriesPer10Sec:9',
        'x-ms-ratelimit-remaining-microsoft.costmanagement-entity-requests': '29',
        'x-ms-ratelimit-remaining-microsoft.costmanagement-tenant-requests': '199',
        ...quotaHeaders,
      },
    );
  }

  function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL, body: string) {
    const action = url.pathname.replace(/^\/_sim\/?/, '');
    const args = (parseJson(body) ?? {}) as Record<string, unknown>;
    if (req.method === 'GET' && action === 'stats') {
      return sendJson(res, 200, {
        concurrentCostQueries: stats.concurrentCostQueries,
        maxConcurrentCostQueries: stats.maxConcurrentCostQueries,
        counts: stats.counts(),
        requests: stats.requests.slice(-500),
      });
    }
    if (req.method === 'POST') {
      switch (action) {
        case 'faults/throttle':
          faults.throttle(args);
          return sendJson(res, 204, undefined);
        case 'faults/fail':
          faults.fail(args as unknown as Parameters<FaultState['fail']>[0]);
          return sendJson(res, 204, undefined);
        case 'faults/slow':
          faults.slow(Number(args['ms'] ?? 0), (args['endpoint'] as SimEndpoint | undefined) ?? 'cost');
          return sendJson(res, 204, undefined);
        case 'faults/graph-quota':
          faults.graphQuotaExhausted(args as unknown as Parameters<FaultState['graphQuotaExhausted']>[0]);
          return sendJson(res, 204, undefined);
        case 'faults/reset':
          faults.reset();
          stats.reset();
          return sendJson(res, 204, undefined);
      }
    }
    return sendJson(res, 404, {
      error: { code: 'NotFound', message: `Unknown admin route ${url.pathname}` },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  baseUrl = `https://${shownHost}:${address.port}`;

  return {
    url: baseUrl,
    ca: SIM_CA,
    stats,
    faults,
    subscription,
    setRetailPriceFactor(factor: number) {
      retailPriceFactor = factor;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function classify(method: string, pathname: string): SimEndpoint {
  const p = pathname.toLowerCase();
  if (p.startsWith('/_sim/')) return 'admin';
  if (method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(p)) return 'token';
  if (
    method === 'GET' &&
    (/^\/[^/]+\/v2\.0\/\.well-known\/openid-configuration$/.test(p) || p.endsWith('/discovery/instance'))
  )
    return 'metadata';
  if (method === 'GET' && /^\/subscriptions\/[^/]+$/.test(p)) return 'subscription';
  if (method === 'GET' && p === '/api/retail/prices') return 'prices';
  if (method === 'POST' && p === '/providers/microsoft.resourcegraph/resources') return 'graph';
  if (method === 'POST' && /^\/subscriptions\/[^/]+\/providers\/microsoft\.costmanagement\/query$/.test(p))
    return 'cost';
  return 'other';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(body: string): unknown {
  try {
    return body ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': Buffer.byteLength(text),
    'x-ms-request-id': randomBytes(16).toString('hex'),
    ...headers,
  });
  res.end(text);
}
