// The console (web/, React + Vite) built into dist/console, which the /console function serves.
// Every script and stylesheet also gets a .gz beside it (served to clients that accept gzip), and
// the sizes are printed: the first page's JavaScript (entry and what it imports) is kept under
// FIRST_PAGE_LIMIT gzip bytes.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONSOLE_SRC = path.join(ROOT, 'web');
export const CONSOLE_OUT = path.join(ROOT, 'dist', 'console');

/** The first page's JavaScript, gzip: the budget the build is held to. */
export const FIRST_PAGE_LIMIT = 300 * 1024;

export interface ConsoleBuild {
  files: Array<{ file: string; bytes: number; gzipBytes: number }>;
  /** Gzip bytes of the JavaScript index.html loads before the first page renders. */
  firstPageGzip: number;
}

/** The newest modification time under a folder (the console's sources), in ms. */
function newest(dir: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return max;
}

/** Whether dist/console is missing or older than web/ (what `npm start` checks before serving). */
export function consoleBuildIsStale(): boolean {
  let built: number;
  try {
    built = statSync(path.join(CONSOLE_OUT, 'index.html')).mtimeMs;
  } catch {
    return true;
  }
  return newest(CONSOLE_SRC) > built;
}

/**
 * Builds the console into `outDir` (default dist/console). The deployment package builds its own
 * copy, so a package build and a test serving dist/console never write the same folder at once.
 */
export async function buildConsole(
  options: { quiet?: boolean; outDir?: string } = {},
): Promise<ConsoleBuild> {
  const { build } = await import('vite');
  const outDir = options.outDir ?? CONSOLE_OUT;
  await build({
    configFile: path.join(CONSOLE_SRC, 'vite.config.ts'),
    logLevel: options.quiet ? 'silent' : 'warn',
    build: { outDir, emptyOutDir: true },
  });
  const assets = path.join(outDir, 'assets');
  const files: ConsoleBuild['files'] = [];
  for (const name of readdirSync(assets).sort()) {
    if (!/\.(?:js|css)$/.test(name)) continue;
    const body = readFileSync(path.join(assets, name));
    const gz = gzipSync(body, { level: 9 });
    writeFileSync(path.join(assets, `${name}.gz`), gz);
    files.push({ file: `assets/${name}`, bytes: body.length, gzipBytes: gz.length });
  }
  // The first page: the entry, the Overview page's chunk, and every chunk they import statically.
  const manifestFile = path.join(outDir, '.vite', 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<
    string,
    { file: string; isEntry?: boolean; imports?: string[] }
  >;
  rmSync(path.dirname(manifestFile), { recursive: true, force: true });
  const loaded = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || loaded.has(chunk.file)) return;
    loaded.add(chunk.file);
    for (const k of chunk.imports ?? []) visit(k);
  };
  for (const [key, chunk] of Object.entries(manifest)) {
    if (chunk.isEntry || key.endsWith('pages/Overview.tsx')) visit(key);
  }
  const firstPageGzip = files.filter((f) => loaded.has(f.file)).reduce((n, f) => n + f.gzipBytes, 0);
  if (!options.quiet) {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
    for (const f of files) {
      console.log(
        `console: ${f.file.padEnd(44)} ${kb(f.bytes).padStart(10)}  gzip ${kb(f.gzipBytes).padStart(9)}${loaded.has(f.file) ? '  (first page)' : ''}`,
      );
    }
    console.log(`console: first page JavaScript ${kb(firstPageGzip)} gzip (limit ${kb(FIRST_PAGE_LIMIT)})`);
  }
  if (firstPageGzip > FIRST_PAGE_LIMIT) {
    throw new Error(
      `The console's first page loads ${firstPageGzip} bytes of gzip JavaScript, over ${FIRST_PAGE_LIMIT}.`,
    );
  }
  return { files, firstPageGzip };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await buildConsole();
  console.log(`console: built into dist/console in ${Math.round(performance.now() - started)} ms`);
}
