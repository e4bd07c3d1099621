import { request } from 'node:https';
import {
  type AzureSimulator,
  type AzureSimulatorOptions,
  startAzureSimulator,
} from '../../dev/azure-sim/index.js';
import {
  type AzureAccess,
  type AzureAccessOptions,
  createAzureAccess,
} from '../../shared/finops/azure/index.js';

export const SUB = '11111111-2222-3333-4444-555555555555';

export interface Harness {
  sim: AzureSimulator;
  /** Waits asked of the injected sleep (already multiplied by paceScale). */
  waits: number[];
  access(overrides?: Partial<AzureAccessOptions>): AzureAccess;
}

export async function startHarness(simOpts: AzureSimulatorOptions = {}): Promise<Harness> {
  const sim = await startAzureSimulator(simOpts);
  const waits: number[] = [];
  return {
    sim,
    waits,
    access: (overrides = {}) =>
      createAzureAccess({
        tenantId: 'tenant-1',
        clientId: 'client-1',
        clientSecret: 'secret-1',
        armEndpoint: sim.url,
        authorityHost: sim.url,
        ca: sim.ca,
        costQueryType: 'ActualCost',
        paceScale: 1,
        // Record instead of sleeping: tests measure the waits without spending them.
        sleep: async (ms) => {
          waits.push(ms);
        },
        random: () => 0,
        ...overrides,
      }),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A plain HTTPS call to the simulator, bypassing every SDK. */
export function raw(
  sim: AzureSimulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      `${sim.url}${path}`,
      {
        method,
        ca: sim.ca,
        headers: {
          ...(text !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const t = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = t;
          try {
            parsed = t ? JSON.parse(t) : undefined;
          } catch {
            // keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (text !== undefined) req.write(text);
    req.end();
  });
}

export async function rawToken(sim: AzureSimulator): Promise<string> {
  const res = await raw(
    sim,
    'POST',
    '/tenant-1/oauth2/v2.0/token',
    'grant_type=client_credentials&client_id=c&client_secret=s&scope=https%3A%2F%2Fmanagement.azure.com%2F.default',
    { 'content-type': 'application/x-www-form-urlencoded' },
  );
  return (res.body as { access_token: string }).access_token;
}
