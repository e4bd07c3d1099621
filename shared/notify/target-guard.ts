/**
 * Where a webhook may point. Its URL is typed by an administrator and posted to from inside the
 * app's network, so without a check a channel could reach the instance metadata service
 * (169.254.169.254), a database on a private address or the app itself. Unless private targets are
 * allowed (Notifications__AllowPrivateTargets; Development allows them by default) a target must
 * resolve to public unicast addresses only: checked when a channel is created, and again on every
 * connection a send opens, where the socket goes to the address that was checked. Resolving once
 * for the check and again for the connection would let a name answer a public address first and a
 * private one second (DNS rebinding).
 */
import dns, { type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

/** A target refused by the policy above; the message says which address and why. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  uniqueLocal: 'private (unique local, fc00::/7)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

/**
 * The special range of an address ('loopback', 'private', 'linkLocal', …), or undefined when it is
 * public unicast. Everything but public unicast is refused, including ranges that embed an IPv4
 * address (NAT64, 6to4, Teredo), which could embed a private one; an IPv4-mapped IPv6 address is
 * judged as the IPv4 address it maps.
 */
export function nonPublicRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

function refusal(host: string, address: string, range: string): TargetRefused {
  const what = `${RANGE_NAMES[range] ?? `special-purpose (${range})`} address`;
  const where =
    host === address
      ? `The webhook target ${address} is a ${what}`
      : `The webhook target ${host} resolves to ${address}, a ${what}`;
  return new TargetRefused(
    `${where}; only public addresses are allowed (Notifications__AllowPrivateTargets is off).`,
  );
}

/** The host of a URL as an address or name ([::1] → ::1). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolves a target's host and throws TargetRefused when any of its addresses is not public (a
 * name with one private address among public ones could be made to connect to it). DNS errors
 * (an unknown name) are thrown as they are.
 */
export async function assertPublicTarget(url: URL): Promise<void> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return assertPublicLiteral(url);
  for (const a of await dns.promises.lookup(host, { all: true })) {
    const range = nonPublicRange(a.address);
    if (range) throw refusal(host, a.address, range);
  }
}

/**
 * Throws TargetRefused when the URL's host is an address literal that is not public. A send checks
 * literals with this (a connection to a literal asks no lookup); names are checked as they connect.
 */
export function assertPublicLiteral(url: URL): void {
  const host = hostOf(url);
  if (!ipaddr.isValid(host)) return;
  const range = nonPublicRange(host);
  if (range) throw refusal(host, host, range);
}

/**
 * A lookup for net.connect that refuses non-public answers. The socket connects to what it
 * returns, so the address checked is the address used. (An address literal never reaches a
 * lookup: assertPublicTarget checks those before the request.)
 */
const publicOnlyLookup = ((
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    for (const a of addresses) {
      const range = nonPublicRange(a.address);
      if (range) return callback(refusal(hostname, a.address, range), '');
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  });
}) as LookupFunction;

let agent: Agent | undefined;

/** The dispatcher of webhook sends when private targets are not allowed (one pool, made on first use). */
export function publicOnlyAgent(): Agent {
  agent ??= new Agent({ connect: { lookup: publicOnlyLookup } });
  return agent;
}

/** Notifications__AllowPrivateTargets, or, unset, whether this is Development. */
export function allowPrivateTargets(config: {
  finops: { Notifications__AllowPrivateTargets?: boolean | undefined };
  isDevelopment: boolean;
}): boolean {
  return config.finops.Notifications__AllowPrivateTargets ?? config.isDevelopment;
}
