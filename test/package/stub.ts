// Runs an app entry (the packaged bundle or the sources) under functions-worker-stub.mjs in a
// child process and returns what it recorded. Shared by test/package and bench/package.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STUB = fileURLToPath(new URL('./functions-worker-stub.mjs', import.meta.url));

export interface StubRequest {
  function: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  body?: string;
  invocationId?: string;
  /** Wait until this file exists before sending the request. */
  waitForFile?: string;
  /** Write this file once the request is answered. */
  announceFile?: string;
}

export interface CoreBinding {
  type: string;
  direction: 'in' | 'out';
  [key: string]: unknown;
}

export interface StubResult {
  readyMs: number;
  /** What the app wrote (pino logs to stdout). */
  stdout?: string;
  stderr?: string;
  importError?: string;
  programmingModel?: { name: string; version: string };
  functions: Array<{ name: string; bindings: Record<string, CoreBinding> }>;
  responses: Array<{
    function: string;
    status?: number;
    headers?: Record<string, string>;
    body?: string;
    error?: string;
  }>;
}

/** Settings for a self-contained start: Development, in-memory PGlite, queue created lazily. */
export const STUB_SETTINGS: Record<string, string> = {
  WEBAPP_ENVIRONMENT: 'Development',
  DATA_DIR: 'memory://',
  AzureWebJobsStorage: 'UseDevelopmentStorage=true',
  AnalysisQueue__Name: 'analysis-jobs',
  Jwt__Key: 'package-test-signing-key-0123456789-0123456789',
  WeeklyAnalysis__Enabled: 'true',
  Logging__LogLevel__Default: 'None',
};

export async function runStub(
  entry: string,
  options: {
    tsx?: boolean;
    requests?: StubRequest[];
    env?: Record<string, string>;
    /** The child's working folder (the package folder, as in Azure); the repository by default. */
    cwd?: string;
  } = {},
): Promise<StubResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'finwatch-stub-'));
  try {
    const resultFile = path.join(dir, 'result.json');
    const args = [STUB, entry, resultFile];
    if (options.requests) {
      writeFileSync(path.join(dir, 'requests.json'), JSON.stringify(options.requests));
      args.push(path.join(dir, 'requests.json'));
    }
    // The child inherits no FINWATCH_*/app settings from the test process except those given.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...STUB_SETTINGS, ...options.env };
    const output = await run(process.execPath, options.tsx ? ['--import', 'tsx', ...args] : args, {
      cwd: options.cwd ?? REPO_ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as StubResult;
    return { ...result, stdout: output.stdout, stderr: output.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
