/** Tool output bound: what one tool result may add to the model's context. */
export const MAX_TOOL_OUTPUT_CHARS = 8 * 1024;

/** Keeps the head, cut at a line boundary, with a note saying how much was left out and why. */
export function truncateHead(text: string, max = MAX_TOOL_OUTPUT_CHARS, hint = 'narrow the query, e.g. by namespace'): string {
  if (text.length <= max) return text;
  const budget = max - 120;
  let cut = text.lastIndexOf('\n', budget);
  if (cut < budget / 2) cut = budget;
  return `${text.slice(0, cut)}\n… [truncated: ${text.length - cut} more characters not shown; ${hint}]`;
}

/** Keeps the tail (the newest log lines), cut at a line boundary. */
export function truncateTail(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const budget = max - 120;
  let start = text.indexOf('\n', text.length - budget);
  if (start < 0 || start > text.length - budget / 2) start = text.length - budget;
  else start += 1;
  return `[truncated: the first ${start} characters are not shown]\n${text.slice(start)}`;
}
