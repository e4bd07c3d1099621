import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/app/routes.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';

// The lint engine of `npx @redocly/cli lint` (the CLI calls this package's lint with its built-in
// `recommended` ruleset when no redocly.yaml exists), so generators and gateways that import the
// documents meet no undeclared path parameters, missing security or empty servers.
describe.each(['auth', 'finops', 'metrics'] as const)('the %s OpenAPI document', (service) => {
  it("passes Redocly's recommended rules with no errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(buildOpenApiDocument(service, routes)),
      absoluteRef: `${service}.json`,
      config,
    });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer})`);
    expect(errors).toEqual([]);
  });

  it('declares every path parameter of every route and the anonymous routes as such', () => {
    const doc = buildOpenApiDocument(service, routes) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: { in: string; name: string }[]; security?: unknown[] }>
      >;
    };
    const version = doc.paths[`/${service}/api/Version`]?.get;
    expect(version?.security).toEqual([]);
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(item)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), path).toEqual([...names].sort());
      }
    }
  });
});
