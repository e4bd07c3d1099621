/**
 * Builds the image's runtime: src/main.ts and the packages it imports, bundled into dist/ with esbuild.
 * The image then needs no node_modules at all (no typescript, no build tooling, no unused package files).
 * The two heavy, rarely used imports stay lazy: @sentry/node (only with SENTRY_DSN) and
 * @kubernetes/client-node (only with a kubeconfig, never in a pod) become their own chunks, loaded on use.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

// `node build.mjs [outdir]`; only the bundle's own files are replaced (dist/bench-build is the bench's).
const outdir = resolve(process.argv[2] ?? new URL('./dist/', import.meta.url).pathname);
for (const old of ['main.js', 'main.js.LEGAL.txt', 'chunks']) {
  rmSync(resolve(outdir, old), { recursive: true, force: true });
}
const result = await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
  metafile: true,
  // CommonJS packages inside an ESM bundle still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(
  `agent bundle: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1048576).toFixed(1)} MB in dist/`,
);
