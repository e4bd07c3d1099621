import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { AiStepError, requestRecommendation } from '../../shared/finops/engine/ai.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { type Api, SUB_A, SUB_B, startAnalysisHost, USER } from './support.js';

type Reply = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** The reply is sent only once this settles (an answer that never comes in time). */
  hold?: Promise<void>;
};

/** A loopback AI agent: answers with the queued replies, then with `fallback`. */
class FakeAgent {
  server!: http.Server;
  url = '';
  replies: Reply[] = [];
  fallback: Reply = { status: 200, body: okBody('ok') };
  requests: Array<{ headers: http.IncomingHttpHeaders; body: { input: string } }> = [];

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        const reply = this.replies.shift() ?? this.fallback;
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
        };
        if (reply.hold) void reply.hold.then(send);
        else if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/agent`;
  }
  reset() {
    this.replies = [];
    this.requests = [];
    this.fallback = { status: 200, body: okBody('ok') };
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

function okBody(content: string) {
  return { output: { content }, conversation_id: 'conv-1', model: 'gpt-test', message_id: 'msg-1' };
}

describe('AI step', () => {
  const agent = new FakeAgent();
  const settings = (timeoutMs = 5_000) => ({
    url: agent.url,
    apiKey: 'secret-key',
    headerName: 'x-agent-key',
    timeoutMs,
    paceScale: 0,
  });

  beforeAll(() => agent.start());
  afterAll(() => agent.close());
  beforeEach(() => agent.reset());

  it('posts { input } with the key header and reads output.content and the ids', async () => {
    agent.replies.push({ status: 200, body: okBody('# Do less') });
    const answer = await requestRecommendation(settings(), 'the prompt');
    expect(answer).toEqual({
      content: '# Do less',
      conversationId: 'conv-1',
      model: 'gpt-test',
      messageId: 'msg-1',
      attempts: 1,
    });
    expect(agent.requests[0]!.body).toEqual({ input: 'the prompt' });
    expect(agent.requests[0]!.headers['x-agent-key']).toBe('secret-key');
  });

  it('retries 429 and 5xx answers, up to three attempts', async () => {
    agent.replies.push({ status: 429, headers: { 'retry-after': '1' } }, { status: 503 });
    const answer = await requestRecommendation(settings(), 'p');
    expect(answer.attempts).toBe(3);
    expect(agent.requests).toHaveLength(3);
  });

  it('waits Retry-After and the backoff, scaled by the pace setting', async () => {
    agent.replies.push({ status: 429, headers: { 'retry-after': '7' } }, { status: 502 });
    const waits: number[] = [];
    await requestRecommendation(
      { ...settings(), paceScale: 1, sleep: async (ms) => void waits.push(ms) },
      'p',
    );
    expect(waits).toEqual([7_000, 4_000]);
  });

  it('gives up after three failed attempts with the reason', async () => {
    agent.fallback = { status: 500 };
    const err = await requestRecommendation(settings(), 'p').catch((e) => e);
    expect(err).toBeInstanceOf(AiStepError);
    expect(err.message).toBe('The AI agent failed after 3 attempts: HTTP 500.');
    expect(agent.requests).toHaveLength(3);
  });

  it('times out each attempt and retries it', async () => {
    // The answers are held until the call has given up: it can only return by timing out, each time.
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    agent.fallback = { status: 200, body: okBody('late'), hold };
    const err = await requestRecommendation(settings(150), 'p').catch((e) => e);
    release();
    expect(err.message).toMatch(/failed after 3 attempts: timed out/);
    expect(agent.requests).toHaveLength(3);
  });

  it('does not retry a 4xx answer or an answer without output.content', async () => {
    agent.replies.push({ status: 401 });
    expect((await requestRecommendation(settings(), 'p').catch((e) => e)).message).toMatch(/HTTP 401/);
    expect(agent.requests).toHaveLength(1);
    agent.replies.push({ status: 200, body: { output: {} } });
    expect((await requestRecommendation(settings(), 'p').catch((e) => e)).message).toMatch(
      /without output.content/,
    );
    expect(agent.requests).toHaveLength(2);
  });

  describe('in an analysis', () => {
    let sim: AzureSimulator;
    let host: TestHost;
    let api: Api;
    beforeAll(async () => {
      sim = await startAzureSimulator({ resourcesPerSubscription: 15 });
      host = await startAnalysisHost(sim, {
        queueWorker: false,
        extra: {
          AI__ApiUrl: agent.url,
          AI__ApiKey: 'secret-key',
          AI__ApiKeyHeaderName: 'x-agent-key',
          AI__TimeoutSeconds: '1',
        },
      });
      api = apiClient(host.url);
    });
    afterAll(async () => {
      await host?.close();
      await sim?.close();
    });

    it('stores the agent answer and sends the budget status with MonthlyBudget', async () => {
      await host.services.prisma.subscription.create({ data: { subscriptionId: SUB_A, budget: 1 } });
      agent.replies.push({ status: 200, body: okBody('# Recommendations\nline two\nline three\nline four') });
      const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
      expect(res.body.success).toBe(true);
      const prompt = agent.requests[0]!.body.input;
      expect(prompt).toMatch(/Budget status: Over budget/);
      expect(prompt).toMatch(/"MonthlyBudget": 1/);
      const run = await host.services.prisma.analysisRun.findUniqueOrThrow({
        where: { id: res.body.analysisRunId },
        include: { aiRecommendations: true },
      });
      expect(run).toMatchObject({
        aiModel: 'gpt-test',
        conversationId: 'conv-1',
        recommendationSource: 'ai',
        recommendationError: null,
      });
      expect(run.aiRecommendations[0]).toMatchObject({
        source: 'ai',
        model: 'gpt-test',
        messageId: 'msg-1',
        conversationId: 'conv-1',
        summary: '# Recommendations line two line three',
      });
    });

    it('never fails the analysis when the agent fails: the run records why and keeps rule-based advice', async () => {
      agent.fallback = { status: 200, body: okBody('late'), delayMs: 1_500 };
      const res = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_B });
      expect(res.body.success).toBe(true);
      expect(res.body.message).toMatch(
        /AI recommendations unavailable: The AI agent failed after 3 attempts: timed out/,
      );
      expect(agent.requests).toHaveLength(3);
      const run = await host.services.prisma.analysisRun.findUniqueOrThrow({
        where: { id: res.body.analysisRunId },
        include: { aiRecommendations: true },
      });
      expect(run).toMatchObject({ aiModel: 'N/A', conversationId: 'N/A', recommendationSource: 'rules' });
      expect(run.recommendationError).toMatch(/timed out/);
      expect(run.aiRecommendations[0]!.source).toBe('rules');
      expect(prompt(agent)).not.toMatch(/MonthlyBudget/);
    });
  });
});

function prompt(agent: FakeAgent): string {
  return agent.requests[0]!.body.input;
}
