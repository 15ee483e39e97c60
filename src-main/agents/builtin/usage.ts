import type { ChatMetrics } from '../../llm/chat-types';

/** Sums Ollama's counters over the agent's LLM rounds. */
export class UsageMeter {
  steps = 0;
  toolCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  private rateTokens = 0;
  private rateNs = 0;
  private sawPrompt = false;
  private sawCompletion = false;

  addRound(metrics: ChatMetrics): void {
    this.steps++;
    if (metrics.prompt_eval_count !== undefined) {
      this.promptTokens += metrics.prompt_eval_count;
      this.sawPrompt = true;
    }
    if (metrics.eval_count !== undefined) {
      this.completionTokens += metrics.eval_count;
      this.sawCompletion = true;
      // Only rounds with both numbers count towards the rate.
      if (metrics.eval_duration !== undefined && metrics.eval_duration > 0) {
        this.rateTokens += metrics.eval_count;
        this.rateNs += metrics.eval_duration;
      }
    }
  }

  /** Generation speed: eval_count / eval_duration (ns), null when the server reported neither. */
  get tokensPerSecond(): number | null {
    return this.rateNs > 0 ? Math.round((this.rateTokens / this.rateNs) * 1e9 * 100) / 100 : null;
  }

  get promptTokensOrNull(): number | null {
    return this.sawPrompt ? this.promptTokens : null;
  }

  get completionTokensOrNull(): number | null {
    return this.sawCompletion ? this.completionTokens : null;
  }
}
