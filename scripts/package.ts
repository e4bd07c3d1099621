// npm run package: the Azure Functions deployment package (Run From Package / Flex Consumption).
//
//   out/package/                    the unzipped package (what the Functions host sees as wwwroot)
//     host.json                     the repository's host.json
//     package.json                  minimal: name finwatch, version, type module, main, runtime externals
//     dist/index.mjs (+ chunk-*.mjs) esbuild bundle of functions/index.ts, ESM, node20
//     dist/pglite.wasm, pglite.data, initdb.wasm   PGlite's assets, loaded beside the bundle
//     pg_trgm.tar.gz                               PGlite's pg_trgm, loaded from the bundle's parent
//     console/                      the console's built files (web/, served at /console)
//     prisma/                       schema.prisma, migrations/, scripts/ (applied at startup)
//     node_modules/                 only what cannot be bundled (see SHIPPED_EXTERNALS)
//   out/finwatch-functions.zip      the same tree, zipped, without the source maps (dist/*.map)
//
// Usable as a module too: buildPackage() is what the tests and the bench call.
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import yazl from 'yazl';
import { buildConsole } from './build-console.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(path.join(ROOT, 'package.json'));

/**
 * Not bundled, shipped in the package's node_modules:
 * - @azure/functions-core: provided by the Functions worker (it intercepts the require);
 * - argon2: a native addon found by node-gyp-build beside its own files (prebuilds/linux-x64);
 * - @prisma/schema-engine-wasm: shared/db/schema-engine.ts reads its .wasm through
 *   require.resolve, so the package ships as is (glue + wasm);
 * - pg-native: pg's optional native binding, never installed; pg falls back to pure JS.
 */
const NOT_SHIPPED_EXTERNALS = ['@azure/functions-core', 'pg-native'];
const SHIPPED_EXTERNALS = ['argon2', '@prisma/schema-engine-wasm'];

export interface PackageResult {
  dir: string;
  zip: string;
  bundle: string;
  bundleBytes: number;
  zipBytes: number;
  files: string[];
}

/** An installed package's folder (some, like PGlite, do not export their package.json). */
function pkgDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    if (existsSync(path.join(base, name, 'package.json'))) return path.join(base, name);
  }
  throw new Error(`${name} is not installed`);
}

function copyPackage(name: string, dest: string, filter?: (rel: string) => boolean): string {
  const from = pkgDir(name);
  const to = path.join(dest, 'node_modules', name);
  cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(from, src);
      if (rel === '') return true;
      if (rel.split(path.sep).includes('node_modules')) return false;
      return filter ? filter(rel) : true;
    },
  });
  return (JSON.parse(readFileSync(path.join(from, 'package.json'), 'utf8')) as { version: string }).version;
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full, base));
    else out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

function zipDir(dir: string, files: string[], zipPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    // Fixed timestamps: the same sources give the same zip.
    const mtime = new Date('2020-01-01T00:00:00Z');
    for (const rel of files) {
      zip.addFile(path.join(dir, rel), rel, { mtime, mode: statSync(path.join(dir, rel)).mode });
    }
    zip.end();
    const out = createWriteStream(zipPath);
    zip.outputStream.pipe(out).on('close', () => resolve());
    zip.outputStream.on('error', reject);
    out.on('error', reject);
  });
}

/**
 * The Functions entry (functions/index.ts) bundled with esbuild into `outdir` as ESM (`index` plus
 * shared chunks), with PGlite's assets beside it. `npm run build` and `npm run package` both use it.
 */
export async function bundleFunctions(
  outdir: string,
  options: { extension: '.js' | '.mjs'; minify: boolean },
): Promise<void> {
  await bundleEsm({ index: 'functions/index.ts' }, outdir, options);
  // PGlite loads these with new URL('./pglite.wasm', import.meta.url): beside the chunks.
  const pgliteDist = path.join(pkgDir('@electric-sql/pglite'), 'dist');
  for (const file of ['pglite.wasm', 'pglite.data', 'initdb.wasm']) {
    cpSync(path.join(pgliteDist, file), path.join(outdir, file));
  }
  // Its contrib modules load their archives one folder up (new URL('../pg_trgm.tar.gz', ...)):
  // pg_trgm serves the substring search's indexes (createPGlite).
  cpSync(path.join(pgliteDist, 'pg_trgm.tar.gz'), path.join(outdir, '..', 'pg_trgm.tar.gz'));
}

/**
 * Entry points bundled as the deployed app is (ESM chunks, the same externals): the Functions
 * bundle, and the analysis bench, which measures memory as a deployed host would use it.
 */
export async function bundleEsm(
  entryPoints: Record<string, string>,
  outdir: string,
  options: { extension: '.js' | '.mjs'; minify: boolean },
): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    outExtension: { '.js': options.extension },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: options.minify,
    keepNames: true,
    sourcemap: 'external',
    legalComments: 'none',
    logLevel: 'warning',
    external: [...NOT_SHIPPED_EXTERNALS, ...SHIPPED_EXTERNALS],
    // Bundled CommonJS (the @azure/functions library, pg, ...) calls require(); an ESM chunk has
    // none, so each chunk gets one. It is how @azure/functions reaches @azure/functions-core,
    // which the worker serves through Module.prototype.require.
    banner: {
      js: "import { createRequire as __fwCreateRequire } from 'node:module'; const require = __fwCreateRequire(import.meta.url);",
    },
  });
}

export async function buildPackage(outRoot = path.join(ROOT, 'out')): Promise<PackageResult> {
  const dir = path.join(outRoot, 'package');
  const zip = path.join(outRoot, 'finwatch-functions.zip');
  rmSync(dir, { recursive: true, force: true });
  rmSync(zip, { force: true });
  mkdirSync(dir, { recursive: true });
  const dist = path.join(dir, 'dist');

  await bundleFunctions(dist, { extension: '.mjs', minify: true });

  // Runtime externals, copied from the installed tree (the lock's versions). argon2 ships its
  // linux-x64 prebuilds (Azure Functions on Linux) and, when npm compiled it on a linux-x64 build
  // machine because the prebuild would not load there, that build/Release/argon2.node as well
  // (node-gyp-build tries build/Release first, then prebuilds/<platform>-<arch>).
  const deps: Record<string, string> = {};
  const localBuild = process.platform === 'linux' && process.arch === 'x64';
  deps.argon2 = copyPackage('argon2', dir, (rel) => {
    const r = rel.split(path.sep).join('/');
    if (r === 'build' || r === 'build/Release') return localBuild;
    if (r.startsWith('build/')) return localBuild && r === 'build/Release/argon2.node';
    if (r === 'prebuilds' || r === 'prebuilds/linux-x64' || r.startsWith('prebuilds/linux-x64/')) return true;
    return ['package.json', 'argon2.cjs', 'LICENSE'].includes(r);
  });
  for (const dep of ['@phc/format', 'node-gyp-build']) copyPackage(dep, dir);
  deps['@prisma/schema-engine-wasm'] = copyPackage(
    '@prisma/schema-engine-wasm',
    dir,
    (rel) => !rel.endsWith('.d.ts'),
  );
  // The docs routes (Development only) resolve swagger-ui-dist/package.json and serve four files.
  copyPackage('swagger-ui-dist', dir, (rel) =>
    [
      'package.json',
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
      'favicon-32x32.png',
      'LICENSE',
    ].includes(rel),
  );

  const rootPkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    license?: string;
  };
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'finwatch',
        version: rootPkg.version,
        private: true,
        type: 'module',
        license: rootPkg.license,
        main: 'dist/index.mjs',
        engines: { node: '>=20.19' },
        // Already present in node_modules; listed for the record (no install step runs).
        dependencies: deps,
      },
      null,
      2,
    )}\n`,
  );
  cpSync(path.join(ROOT, 'host.json'), path.join(dir, 'host.json'));
  mkdirSync(path.join(dir, 'prisma'));
  cpSync(path.join(ROOT, 'prisma', 'schema.prisma'), path.join(dir, 'prisma', 'schema.prisma'));
  for (const sub of ['migrations', 'scripts']) {
    if (existsSync(path.join(ROOT, 'prisma', sub))) {
      cpSync(path.join(ROOT, 'prisma', sub), path.join(dir, 'prisma', sub), { recursive: true });
    }
  }

  // The console's built files, found by the bundle at ../console (shared/console/static.ts).
  await buildConsole({ quiet: true, outDir: path.join(dir, 'console') });

  // Source maps stay in out/package/dist for symbolicating a production stack trace; the zip
  // leaves them out (24 MB unpacked, more than the code; Node reads them only with
  // --enable-source-maps).
  const files = listFiles(dir).filter((f) => !f.endsWith('.map'));
  await zipDir(dir, files, zip);
  const bundle = path.join(dist, 'index.mjs');
  const bundleBytes = files
    .filter((f) => f.startsWith('dist/') && f.endsWith('.mjs'))
    .reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
  return { dir, zip, bundle, bundleBytes, zipBytes: statSync(zip).size, files };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const result = await buildPackage();
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `package: ${path.relative(ROOT, result.zip)} (${mb(result.zipBytes)}; bundle ${mb(result.bundleBytes)}, ${result.files.length} files) in ${Math.round(performance.now() - started)} ms`,
  );
}
