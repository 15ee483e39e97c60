/**
 * The shipped prompt text, cut to about `tokens` tokens. Tokenizers differ by model; English prose
 * runs close to 4 characters per token on the common ones (Llama 3, Qwen 2.5, Gemma), so the cut
 * is at the last word boundary before 4 × tokens characters. Each request is numbered at the start
 * so no two prompts share a prefix: a server's prompt cache would otherwise skip the prompt's
 * evaluation and make TTFT look better than a real workload gets.
 */
export const CHARS_PER_TOKEN = 4;

/** The shipped story, paragraph by paragraph (project-written prose). */
export const STORY_PARAGRAPHS: readonly string[] = [
  'The harbour town woke slowly in the grey hour before sunrise. Fishing boats rocked against the stone quay, their ropes creaking as the tide turned, and a thin mist lay over the water like a sheet that nobody had folded away.',
  'Along the market street the shopkeepers lifted their shutters one by one. A baker carried trays of bread to the window, a cobbler sorted the boots he had promised for the end of the week, and a young clerk at the shipping office counted the crates listed for the morning ferry.',
  'Everyone in the town knew the weather by the colour of the cliffs. When the rock glowed orange the day would be calm; when it turned the colour of slate the boats stayed in, and the harbour master chalked a warning on the board outside his door.',
  'That morning the cliffs were neither orange nor slate but a pale, uncertain brown, and the harbour master stood for a long time with the chalk in his hand before he wrote anything at all.',
  'In the schoolhouse on the hill the teacher opened the windows to let in the sea air. She had planned a lesson on tides: why the water rises twice a day, how the moon pulls at the oceans, and why the highest tides come when the sun and the moon stand in a line.',
  'Her pupils preferred stories to diagrams, so she began with the old tale of the lighthouse keeper who had once counted every wave for a whole night to prove to the mayor that the ninth wave was always the largest. He was wrong, of course, but he kept the best logbook the town had ever seen.',
  'Down at the ferry landing the engineer checked the pressure gauges and listened to the rhythm of the pistons. Machines, he liked to say, tell you what is wrong long before they break, if only you have the patience to hear them.',
  'By midday the mist had lifted and the market was full. Merchants argued over the price of salt, children chased gulls along the sea wall, and the smell of frying fish drifted from the stalls near the fountain.',
  'A traveller arrived on the noon coach with a leather case and a map folded so many times that its creases had become roads of their own. She asked the way to the observatory, and three people gave her three different answers, each certain of being right.',
  'The observatory stood on the headland, a white dome that had not turned in years. Inside, the old telescope still pointed at the patch of sky where a comet had been seen a generation ago, as if the instrument were waiting for it to come back.',
  'The traveller set down her case, opened the shutters of the dome and began to measure the mechanism with a steel rule, writing figures in a notebook in a small, exact hand. By evening she knew why the dome no longer turned, and what it would take to make it move again.',
  'When the sun went down behind the cliffs the harbour master rubbed out his uncertain warning and wrote a single word instead: clear. Out on the headland, for the first time in twenty years, the white dome began to turn.',
];
const TEXT = STORY_PARAGRAPHS.join('\n\n');

/** About `tokens` tokens of prose for request number `index` (the text repeats when more is asked). */
export function promptOfTokens(tokens: number, index: number): string {
  const head = `Request ${index}. Continue this story in the same style.\n\n`;
  const budget = Math.max(1, Math.round(tokens * CHARS_PER_TOKEN) - head.length);
  let body = TEXT;
  while (body.length < budget) body += `\n\n${TEXT}`;
  if (body.length > budget) {
    const cut = body.lastIndexOf(' ', budget);
    body = body.slice(0, cut > 0 ? cut : budget);
  }
  return head + body;
}
