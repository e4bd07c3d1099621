/** A resource as Resource Graph's `Resources` table holds it. */
export interface SimResource {
  id: string;
  name: string;
  type: string;
  tenantId: string;
  kind: string;
  location: string;
  resourceGroup: string;
  subscriptionId: string;
  managedBy: string;
  sku: Record<string, unknown> | null;
  plan: null;
  properties: Record<string, unknown>;
  tags: Record<string, string>;
  identity: null;
  zones: null;
  extendedLocation: null;
}
