// Runs Azurite's queue service in this process and ends it when the process that started it is
// gone, even after a kill -9 or an out-of-memory kill of that parent (no signal reaches us then:
// we are re-parented, so process.ppid changes). Plain JavaScript: it runs without tsx.
// Usage: node azurite-guard.mjs <azurite queue main.js> [azurite arguments...]
import { pathToFileURL } from 'node:url';

const parent = process.ppid;
const [main, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], main, ...args];

const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  // Azurite closes its server and saves on SIGTERM; exit regardless if that takes too long.
  setTimeout(() => process.exit(0), 3000).unref();
  process.kill(process.pid, 'SIGTERM');
}, 250);
// Azurite's own server keeps the process alive; the watch must not once Azurite has shut down.
watch.unref();

await import(pathToFileURL(main).href);
