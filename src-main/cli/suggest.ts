/** Levenshtein distance, for "did you mean" (names here are short, so O(n·m) is nothing). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/** The closest candidate; a candidate containing the word (or contained in it) wins ties. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    let score = editDistance(word.toLowerCase(), c.toLowerCase());
    if (c.includes(word) || word.includes(c)) score -= 0.5;
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
