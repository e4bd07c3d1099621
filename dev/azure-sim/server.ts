/**
 * The Azure simulator: an HTTPS server on loopback speaking the wire shapes of the Entra token
 * endpoint, subscription lookup, Resource Graph and Cost Management Query, so the real SDK clients
 * work against it unchanged (through their `endpoint` / `$host` / `baseUri` and `authorityHost`
 * options). It is HTTPS because MSAL refuses a non-https authority and the SDK's bearer-token policy
 * refuses plain http; the certificate in ./tls is self-signed for localhost/127.0.0.1 (dev only) and
 * exported as `ca` so clients can trust it.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { handleAdmin } from './admin.js';
import { costEndpoint } from './cost-endpoint.js';
import { CostQuota, type CostQuotaOptions } from './cost-quota.js';
import { generateSubscription } from './data.js';
import { handleMetadata, handleToken, hasSimToken } from './entra.js';
import { FaultState, type FaultSwitches, type SimEndpoint, throttleHeaders } from './faults.js';
import { classify, parseJson, readBody, sendJson } from './http-io.js';
import { handleGraph } from './resource-graph.js';
import { answerRetailPrices } from './retail-prices.js';
import { createStats, type SimStats } from './sim-stats.js';
import type { SimSubscription } from './subscription.js';

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

export async function startAzureSimulator(opts: AzureSimulatorOptions = {}): Promise<AzureSimulator> {
  const host = opts.host ?? '127.0.0.1';
  const now = opts.now ?? (() => new Date());
  const seed = opts.seed ?? 1;
  const resources = opts.resourcesPerSubscription ?? 60;
  const graphMaxPageSize = opts.graphMaxPageSize ?? 1000;
  const faults = new FaultState();
  const stats = createStats();
  const quota = opts.costQuota ? new CostQuota(opts.costQuota) : undefined;
  const subs = new Map<string, SimSubscription>();
  let baseUrl = '';
  let retailPriceFactor = 1;

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

  const handleCost = costEndpoint({
    quota,
    faults,
    now,
    subscription,
    pageSize: opts.costPageSize ?? 5000,
    baseUrl: () => baseUrl,
  });

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
    if (endpoint === 'admin') return handleAdmin(req, res, url, body, { stats, faults });
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
        return handleToken(res, segments[0] ?? 'common', body, opts.credentials);
      case 'metadata':
        return handleMetadata(res, url, segments[0] ?? 'common', baseUrl);
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
    if (!hasSimToken(auth)) {
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
