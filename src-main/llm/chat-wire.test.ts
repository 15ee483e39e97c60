import { describe, expect, it } from 'vitest';
import { OllamaChatResponseSchema } from './ollama-wire';
import { ChatAccumulator, toWireMessage } from './chat-wire';

const chunk = (value: unknown) => OllamaChatResponseSchema.parse(value);

describe('toWireMessage', () => {
  it('nests tool calls under function and keeps tool_name on results', () => {
    expect(toWireMessage({ role: 'system', content: 's' })).toEqual({ role: 'system', content: 's' });
    expect(
      toWireMessage({ role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'list_pods', arguments: { namespace: 'a' } }] }),
    ).toEqual({ role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'list_pods', arguments: { namespace: 'a' } } }] });
    expect(toWireMessage({ role: 'tool', content: '[]', tool_name: 'list_pods', tool_call_id: 'call_1' })).toEqual({
      role: 'tool', content: '[]', tool_name: 'list_pods', tool_call_id: 'call_1',
    });
  });
});

describe('ChatAccumulator', () => {
  it('folds a stream: content deltas, tool calls, final metrics', () => {
    const acc = new ChatAccumulator();
    expect(acc.add(chunk({ model: 'm', created_at: 't', message: { role: 'assistant', content: 'Hel' }, done: false }))).toEqual({ content: 'Hel' });
    acc.add(chunk({ model: 'm', message: { role: 'assistant', content: 'lo', tool_calls: [{ id: 'call_a', function: { index: 0, name: 'f', arguments: { x: 1 } } }] }, done: false }));
    expect(acc.isDone).toBe(false);
    acc.add(chunk({ model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', eval_count: 3, eval_duration: 9, prompt_eval_count: 5 }));
    expect(acc.isDone).toBe(true);
    expect(acc.result()).toEqual({
      model: 'm',
      done_reason: 'stop',
      message: { role: 'assistant', content: 'Hello', tool_calls: [{ id: 'call_a', name: 'f', arguments: { x: 1 } }] },
      metrics: { eval_count: 3, eval_duration: 9, prompt_eval_count: 5 },
    });
  });

  it('leaves omitted metrics undefined and accepts string arguments that decode to an object', () => {
    const acc = new ChatAccumulator();
    acc.add(chunk({ model: 'm', message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{"a":"b"}' } }] }, done: true }));
    const result = acc.result();
    expect(result.metrics.load_duration).toBeUndefined();
    expect(result.message.tool_calls).toEqual([{ name: 'f', arguments: { a: 'b' } }]);
  });

  it('rejects tool arguments that are not an object', () => {
    expect(OllamaChatResponseSchema.safeParse({ model: 'm', done: true, message: { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: 'nope' } }] } }).success).toBe(false);
  });
});
