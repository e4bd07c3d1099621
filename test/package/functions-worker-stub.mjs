// A recording stand-in for the Azure Functions Node.js worker, run as its own process:
//
//   node [--import tsx] test/package/functions-worker-stub.mjs <entry> <result.json> [requests.json]
//
// Like the real worker, it answers require('@azure/functions-core') by wrapping
// Module.prototype.require (the @azure/functions library reaches the core API that way, also from
// an ESM bundle through createRequire), imports the app's entry, and records setProgrammingModel
// and every registerFunction(metadata, handler). `readyMs` is performance.now() once the import
// has settled: process start to registrations done. Optionally it then invokes HTTP handlers with
// real HttpRequest/InvocationContext objects and records the responses.
import { existsSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [entry, resultFile, requestsFile] = process.argv.slice(2);
if (!entry || !resultFile) {
  console.error('usage: functions-worker-stub.mjs <entry> <result.json> [requests.json]');
  process.exit(2);
}

const functions = [];
let programmingModel;
const coreApi = {
  version: '3.10.1',
  hostVersion: '4.1000.0',
  setProgrammingModel(model) {
    programmingModel = { name: model.name, version: model.version };
  },
  getProgrammingModel: () => programmingModel,
  registerFunction(metadata, handler) {
    functions.push({ metadata, handler });
    return { dispose() {} };
  },
  registerHook: () => ({ dispose() {} }),
  log: () => {},
  Disposable: class {
    dispose() {}
  },
};
const originalRequire = Module.prototype.require;
Module.prototype.require = new Proxy(originalRequire, {
  apply(target, thisArg, args) {
    return args[0] === '@azure/functions-core' ? coreApi : Reflect.apply(target, thisArg, args);
  },
});

let importError;
try {
  await import(pathToFileURL(entry).href);
} catch (error) {
  importError = String(error?.stack ?? error);
}
const readyMs = performance.now();

/** A streamed answer (Node Readable, web ReadableStream or async iterable), read to its end. */
async function streamText(body) {
  const chunks = [];
  for await (const chunk of body)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const responses = [];
if (requestsFile && !importError) {
  const requests = JSON.parse((await import('node:fs')).readFileSync(requestsFile, 'utf8'));
  // Real request/context classes, from the repository's @azure/functions (the bundle keeps its own
  // copy private); the handlers only read their public members.
  const { HttpRequest, InvocationContext } = createRequire(import.meta.url)('@azure/functions');
  for (const r of requests) {
    // A test that changes the world between two requests (starts a database) waits for the
    // stub's `announceFile` and answers with the `waitForFile` the next request waits on.
    if (r.waitForFile) {
      while (!existsSync(r.waitForFile)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fn = functions.find((f) => f.metadata.name === r.function);
    if (!fn) {
      responses.push({ function: r.function, error: 'not registered' });
      continue;
    }
    const request = new HttpRequest({
      method: r.method ?? 'GET',
      url: r.url,
      headers: r.headers ?? {},
      params: r.params ?? {},
      body: r.body === undefined ? undefined : { string: r.body },
    });
    const context = new InvocationContext({
      functionName: r.function,
      invocationId: r.invocationId ?? `stub-${responses.length}`,
    });
    try {
      const res = await fn.handler(request, context);
      const body =
        res.jsonBody !== undefined
          ? JSON.stringify(res.jsonBody)
          : typeof res.body === 'string'
            ? res.body
            : res.body instanceof Uint8Array
              ? Buffer.from(res.body).toString('utf8')
              : res.body === undefined || res.body === null
                ? ''
                : typeof res.body === 'object' && Symbol.asyncIterator in res.body
                  ? await streamText(res.body)
                  : String(res.body);
      const headers = Object.fromEntries(new Headers(res.headers ?? {}).entries());
      responses.push({ function: r.function, status: res.status ?? 200, headers, body });
    } catch (error) {
      responses.push({ function: r.function, error: String(error?.stack ?? error) });
    }
    if (r.announceFile) writeFileSync(r.announceFile, String(responses.length));
  }
}

writeFileSync(
  resultFile,
  JSON.stringify({
    readyMs,
    importError,
    programmingModel,
    functions: functions.map((f) => f.metadata),
    responses,
  }),
);
// The app's services (PGlite, pools) stay open; the worker would keep running, the stub ends.
process.exit(0);
