/**
 * One value per host, made on first use. Hosts are told apart by an object each owns alone (its
 * PrismaClient, its parsed configuration): several hosts share one process in tests, the
 * benchmarks and the local host's restarts, and must never share a cache or a limit. The value
 * goes with that object (a WeakMap), so a closed host leaves nothing behind.
 */
function madeOncePer<A, V>(keyOf: (arg: A) => object, make: (arg: A) => V): (arg: A) => V {
  const values = new WeakMap<object, V>();
  return (arg) => {
    const key = keyOf(arg);
    let value = values.get(key);
    if (value === undefined) {
      value = make(arg);
      values.set(key, value);
    }
    return value;
  };
}

/** A value per owner (a host's PrismaClient or configuration), made from it. */
export function perHost<O extends object, V>(make: (owner: O) => V): (owner: O) => V {
  return madeOncePer((owner: O) => owner, make);
}

/**
 * A value per host's database (its PrismaClient), made from the host's services: for what holds
 * rows read from that database, which two hosts sharing a configuration must still not share.
 */
export function perDatabase<S extends { prisma: object }, V>(make: (services: S) => V): (services: S) => V {
  return madeOncePer((services: S) => services.prisma, make);
}
