/**
 * The analysis's recommendation step: the facts of the run, then the AI agent's recommendation, or
 * the rule-based one without an agent or when the agent fails.
 */
import type { Logger } from '../../observability/logger.js';
import type { AzureResource } from '../azure/index.js';
import type { MergedFlag } from './advisor-merge.js';
import { type AiSettings, requestRecommendation } from './ai.js';
import { shortReason } from './errors.js';
import type { RecommendationRow } from './persist.js';
import { type AnalysisFacts, buildPrompt, ruleBasedRecommendation, summarize } from './recommendations.js';

/** The n costliest entries, rounded to cents. */
export function top(map: Map<string, number>, n: number) {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, cost]) => ({ name, cost: Math.round(cost * 100) / 100 }));
}

/** Advisor's recommendations as the facts list them, from the flags they were merged into. */
export function advisorFacts(
  resources: AzureResource[],
  flagsByIndex: Map<number, MergedFlag[]>,
): AnalysisFacts['advisor'] {
  return resources.flatMap((r, i) =>
    (flagsByIndex.get(i) ?? []).flatMap((f) =>
      f.advisor
        ? [
            {
              resourceName: r.name,
              resourceType: r.type,
              problem: f.advisor.problem,
              solution: f.advisor.solution,
              annualSavings: f.advisor.annualSavings,
              currency: f.advisor.currency,
            },
          ]
        : [],
    ),
  );
}

export interface Recommended {
  recommendation: RecommendationRow;
  source: 'ai' | 'rules';
  /** Why the AI agent's answer was not used (null: it was, or there is no agent). */
  error: string | null;
  aiModel: string;
  conversationId: string;
}

export async function recommend(
  deps: { ai?: Omit<AiSettings, 'signal'> | undefined; log: Logger },
  facts: AnalysisFacts,
  recordedAt: Date,
  signal: AbortSignal | undefined,
): Promise<Recommended> {
  const rules = (error: string | null): Recommended => {
    const r = ruleBasedRecommendation(facts);
    return {
      recommendation: {
        recommendationText: r.text,
        summary: r.summary,
        messageId: '',
        conversationId: '',
        model: 'rules',
        timestamp: recordedAt.getTime() / 1000,
        source: 'rules',
        recordedAt,
      },
      source: 'rules',
      error,
      aiModel: 'N/A',
      conversationId: 'N/A',
    };
  };
  if (!deps.ai) return rules(null);
  try {
    const answer = await requestRecommendation(
      { ...deps.ai, ...(signal ? { signal } : {}) },
      buildPrompt(facts),
    );
    return {
      recommendation: {
        recommendationText: answer.content,
        summary: summarize(answer.content),
        messageId: answer.messageId,
        conversationId: answer.conversationId,
        model: answer.model,
        timestamp: recordedAt.getTime() / 1000,
        source: 'ai',
        recordedAt,
      },
      source: 'ai',
      error: null,
      aiModel: answer.model || 'unknown',
      conversationId: answer.conversationId || 'N/A',
    };
  } catch (err) {
    if (signal?.aborted) throw err;
    const reason = shortReason(err);
    deps.log.warn(
      { subscriptionId: facts.subscriptionId, reason },
      'AI step failed; using rule-based recommendations',
    );
    return rules(reason);
  }
}
