// Adds to package-lock.json the platform-specific optional packages a dependency declares but this
// machine's registry mirror does not serve (it carries only the packages for this platform), so
// that `npm ci` accepts the lockfile here and on every other platform. npm never fetches an entry
// whose os/cpu/libc does not match the machine, so these need no integrity here; elsewhere npm
// fetches them from the full registry. Run after any `npm install` that rewrote the lockfile.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const OS = ['linux', 'darwin', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  return { os: [os], cpu: [cpu], ...(parts.includes('musl') ? { libc: ['musl'] } : {}) };
}

let added = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/` : 'node_modules/';
    const key = lock.packages[`${base}${dep}`] ? `${base}${dep}` : `node_modules/${dep}`;
    if (lock.packages[key]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[key] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform package entr${added === 1 ? 'y' : 'ies'} added`);
