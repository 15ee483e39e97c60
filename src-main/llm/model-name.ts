/** Ollama's default registry and namespace, which its short names leave out. */
const DEFAULT_PREFIX = 'registry.ollama.ai/library/';

/**
 * The canonical form Ollama matches on: trimmed, lower-cased (Ollama compares names
 * case-insensitively), the default registry/namespace dropped, and `:latest` added when the last
 * path segment has no tag. A `:` before the last `/` is a registry port, not a tag.
 */
export function canonicalModelName(name: string): string {
  let n = name.trim().toLowerCase();
  if (n.startsWith(DEFAULT_PREFIX)) n = n.slice(DEFAULT_PREFIX.length);
  const lastSegment = n.slice(n.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? n : `${n}:latest`;
}

/** `llama3` and `llama3:latest` are the same model. */
export function sameModel(a: string, b: string): boolean {
  return canonicalModelName(a) === canonicalModelName(b);
}
