import { STORY_PARAGRAPHS } from './prompt';

/**
 * The shipped corpus (`dataset: {kind: "shipped"}`): project-written prompts of varied length and
 * varied answer length, the mix a chat service sees (short questions, summaries of a long text,
 * rewrites), built from the shipped story so the repository needs no third-party text. Each entry
 * asks for a number of output tokens like ShareGPT's reference answers do.
 */

type CorpusEntry = { task: string; paragraphs: number; outputTokens: number };

const ENTRIES: readonly CorpusEntry[] = [
  { task: 'In one sentence, what is a harbour master for?', paragraphs: 0, outputTokens: 48 },
  { task: 'Give three reasons a fishing town might keep its boats in when the weather turns.', paragraphs: 0, outputTokens: 160 },
  { task: 'Explain in plain words why there are two high tides a day.', paragraphs: 0, outputTokens: 220 },
  { task: 'Write a short poem about a lighthouse keeper counting waves.', paragraphs: 0, outputTokens: 120 },
  { task: 'Summarise the following passage in two sentences.', paragraphs: 1, outputTokens: 64 },
  { task: 'What does the harbour master decide to write, and why is he unsure? Answer from the passage.', paragraphs: 4, outputTokens: 96 },
  { task: 'Rewrite the passage below for a ten-year-old reader.', paragraphs: 2, outputTokens: 256 },
  { task: 'List every person who appears in the passage below, with one line about each.', paragraphs: 6, outputTokens: 200 },
  { task: 'Translate the passage below into simple, formal English, keeping every detail.', paragraphs: 3, outputTokens: 320 },
  { task: 'Continue the story below for a few paragraphs in the same style.', paragraphs: 8, outputTokens: 512 },
  { task: 'Summarise the story below in one paragraph.', paragraphs: 12, outputTokens: 180 },
  { task: 'Write a newspaper article about the events of the story below.', paragraphs: 12, outputTokens: 400 },
  { task: 'What is the traveller measuring in the observatory, and what do you think she finds? Base your answer on the text.', paragraphs: 11, outputTokens: 140 },
  { task: 'Turn the story below into a short play with stage directions.', paragraphs: 24, outputTokens: 700 },
  { task: 'Give a chapter-by-chapter outline of a novel that begins with the text below.', paragraphs: 24, outputTokens: 600 },
  { task: 'Find the sentences in the text below that describe the weather, and explain what each tells the reader.', paragraphs: 36, outputTokens: 300 },
];

/** The corpus as prompts: the task, then (for most) some of the story, repeating it for the longest ones. */
export function shippedCorpus(): { prompt: string; outputTokens: number }[] {
  return ENTRIES.map((entry) => {
    const parts = Array.from({ length: entry.paragraphs }, (_, i) => STORY_PARAGRAPHS[i % STORY_PARAGRAPHS.length] ?? '');
    return { prompt: parts.length > 0 ? `${entry.task}\n\n${parts.join('\n\n')}` : entry.task, outputTokens: entry.outputTokens };
  });
}
