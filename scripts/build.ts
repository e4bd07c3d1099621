// npm run build: makes the repository itself a Functions project. package.json's `main`
// (dist/functions/index.js) is the bundled entry; its externals (argon2, the Prisma schema engine,
// swagger-ui-dist) resolve from the repository's node_modules and the migrations from prisma/,
// so `func start` and `func azure functionapp publish` work from the repository after
// `npm install && npm run build`. `npm run package` builds the self-contained zip instead.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.js';
import { bundleFunctions } from './package.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the build writes the entry, relative to the repository (package.json `main`). */
export const BUILD_ENTRY = 'dist/functions/index.js';

export async function buildFunctions(): Promise<string> {
  const outdir = path.join(ROOT, path.dirname(BUILD_ENTRY));
  rmSync(outdir, { recursive: true, force: true });
  await bundleFunctions(outdir, { extension: '.js', minify: false });
  return path.join(ROOT, BUILD_ENTRY);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const entry = await buildFunctions();
  console.log(`build: ${path.relative(ROOT, entry)} in ${Math.round(performance.now() - started)} ms`);
  // The console's files beside the entry (dist/console), served at /console.
  await buildConsole();
}
