import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

// @types/node 20 does not declare the WebAssembly global; this is the slice used here.
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(
        bytes: Uint8Array,
        imports: Record<string, unknown>,
      ): Promise<{ instance: { exports: Record<string, unknown> } }>;
    };
  }
).WebAssembly;

let gluePromise: Promise<Glue> | undefined;

/**
 * Prisma's schema engine compiled to WebAssembly. Its ESM entry imports a `.wasm` file, which
 * Node 20 loads only behind --experimental-wasm-modules, so the module is instantiated here with
 * its wasm-bindgen glue instead. Loaded once per process, lazily: only migrations need it.
 */
export function loadSchemaEngineGlue(): Promise<Glue> {
  gluePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    // The package exports only its JS entries; the .wasm sits beside the glue.
    const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
    const glue = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as Glue & {
      __wbg_set_wasm(exports: Record<string, unknown>): void;
    };
    const { instance } = await wasmApi.instantiate(await readFile(wasmPath), {
      './schema_engine_bg.js': glue,
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return gluePromise;
}

export interface OpenedSchemaEngine {
  engine: SchemaEngine;
  /** Frees the engine and closes the connections it opened (which hold the migration lock). */
  close(): Promise<void>;
}

export async function openSchemaEngine(
  schema: { path: string; content: string },
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  log: (message: string) => void = () => {},
): Promise<OpenedSchemaEngine> {
  const glue = await loadSchemaEngineGlue();
  // The engine never disposes the adapters it connects; left open, the PostgreSQL session keeps
  // Prisma's migration advisory lock until the pool idles it out, stalling the next migrate.
  const opened: Array<{ dispose(): Promise<void> }> = [];
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    async connect() {
      const adapter = await adapterFactory.connect();
      opened.push(adapter);
      return adapter;
    },
    async connectToShadowDb() {
      const adapter = await adapterFactory.connectToShadowDb();
      opened.push(adapter);
      return adapter;
    },
  };
  const engine = await glue.SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    (msg: string) => log(msg),
    bindMigrationAwareSqlAdapterFactory(tracking),
  );
  return {
    engine,
    async close() {
      engine.free();
      await Promise.allSettled(opened.map((a) => a.dispose()));
    },
  };
}
