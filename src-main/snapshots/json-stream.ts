/**
 * An incremental JSON reader for large documents (a 60 MiB snapshot), fed chunk by chunk, that
 * never holds the whole text or the whole tree. It walks the document's outer structure (its
 * "skeleton": the containers above the values the caller wants) and hands each wanted value to
 * the caller as raw text as soon as it is complete; the caller parses it (JSON.parse, native and
 * fast on a small piece) and keeps, transforms or drops it. With `onSkeleton` the skeleton's own
 * text is passed through as it came, so a caller can rewrite a document value by value (export).
 *
 * Which values are handed over is the caller's choice (`split(path, first)`); any primitive
 * where a container was expected is handed over too, so the skeleton is containers only. Depth
 * is counted across skeleton and values: a document nested deeper than `maxDepth` is refused
 * (JsonDepthError, naming the path) before anything recurses over it.
 *
 * No maintained streaming JSON parser is among the project's dependencies; this one is small,
 * tested on its own (json-stream.test.ts), and checks the syntax of the skeleton itself and of
 * every value (through JSON.parse).
 */

export type JsonPath = readonly (string | number)[];

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at character ${offset}`);
  }
}

export class JsonDepthError extends Error {
  override name = 'JsonDepthError';
  constructor(
    readonly path: JsonPath,
    readonly maxDepth: number,
  ) {
    super(`nested deeper than ${maxDepth} levels`);
  }
}

export type JsonStreamOptions = {
  maxDepth: number;
  /** Whether the value starting at `path` (its first character `first`) is handed over whole. */
  split(path: JsonPath, first: string): boolean;
  /** A handed-over value's text; with onSkeleton, what it answers replaces it in the output (undefined: the text as it was). */
  onValue(path: JsonPath, raw: string): string | undefined;
  /** A skeleton container begins (`{` or `[`) at `path`. */
  onEnter?(path: JsonPath, kind: 'object' | 'array'): void;
  /** The skeleton's text, in order (whitespace, brackets, keys, commas). */
  onSkeleton?(text: string): void;
};

type Frame = { kind: 'object' | 'array'; key: string | number; state: FrameState; index: number };
/** What the frame expects next. */
type FrameState = 'first' | 'key' | 'colon' | 'value' | 'comma';

type Capture =
  | { kind: 'container'; depth: number; inString: boolean; escape: boolean }
  | { kind: 'string'; escape: boolean; opened: boolean }
  | { kind: 'scalar' };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const SCALAR_END = new Set([0x2c, 0x5d, 0x7d, 0x20, 0x09, 0x0a, 0x0d]); // , ] } and whitespace

export class JsonStreamReader {
  private readonly stack: Frame[] = [];
  private rootDone = false;
  private rootStarted = false;
  private capture: Capture | null = null;
  private captureParts: string[] = [];
  private capturePath: JsonPath = [];
  /** A skeleton key being read: its raw parts, or null. */
  private keyParts: string[] | null = null;
  private keyEscape = false;
  /** The key just read in an object, which names the value that follows. */
  private pendingKey: string | undefined;
  private offset = 0;
  private skeletonOut = '';

  constructor(private readonly options: JsonStreamOptions) {}

  /** Feeds the next piece of the text (decoded: split multi-byte characters are the caller's StringDecoder's job). */
  write(chunk: string): void {
    let i = 0;
    let skeletonFrom = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.capture) {
        const end = this.scanCapture(chunk, i);
        if (end < 0) {
          this.captureParts.push(chunk.slice(i));
          i = n;
          skeletonFrom = n;
          break;
        }
        this.captureParts.push(chunk.slice(i, end));
        i = end;
        this.finishCapture();
        skeletonFrom = i;
        continue;
      }
      if (this.keyParts) {
        const end = this.scanKey(chunk, i);
        if (end < 0) {
          this.keyParts.push(chunk.slice(i));
          i = n;
          break;
        }
        this.keyParts.push(chunk.slice(i, end));
        i = end;
        this.finishKey();
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (WS.has(c)) {
        i++;
        continue;
      }
      if (this.skeletonChar(chunk, i, c)) {
        // A value capture begins at i: flush the skeleton before it.
        this.emitSkeleton(chunk.slice(skeletonFrom, i));
        skeletonFrom = i;
        continue;
      }
      i++;
    }
    if (!this.capture) this.emitSkeleton(chunk.slice(skeletonFrom, i));
    this.offset += n;
  }

  /** The text ended: throws if the document is not complete. */
  end(): void {
    if (this.capture?.kind === 'scalar') {
      this.finishCapture();
    }
    if (this.capture || this.keyParts || this.stack.length > 0 || !this.rootDone) throw new JsonSyntaxError('unexpected end of JSON', this.offset);
    this.flushSkeleton();
  }

  private emitSkeleton(text: string): void {
    if (!this.options.onSkeleton || text.length === 0) return;
    this.skeletonOut += text;
    if (this.skeletonOut.length > 4096) this.flushSkeleton();
  }

  private flushSkeleton(): void {
    if (this.skeletonOut.length > 0) this.options.onSkeleton?.(this.skeletonOut);
    this.skeletonOut = '';
  }

  /** The path of the innermost open container (the root's is []). */
  private path(): (string | number)[] {
    const path: (string | number)[] = [];
    for (let k = 1; k < this.stack.length; k++) path.push((this.stack[k] as Frame).key);
    return path;
  }

  private childPath(): (string | number)[] {
    const top = this.stack[this.stack.length - 1];
    if (!top) return [];
    const path = this.path();
    path.push(top.kind === 'array' ? top.index : (this.pendingKey as string));
    return path;
  }

  /** `i` is the index in the chunk being read (0 when unknown: the error names the chunk's start). */
  private fail(message: string, i: number): never {
    throw new JsonSyntaxError(message, this.offset + i);
  }

  /** One skeleton character; true when it starts a captured value (not consumed). */
  private skeletonChar(chunk: string, i: number, c: number): boolean {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      if (this.rootDone) this.fail('unexpected text after the end of the document', i);
      this.rootStarted = true;
      return this.beginValue(chunk, i, c, []);
    }
    switch (top.state) {
      case 'first':
        if ((top.kind === 'object' && c === 0x7d) || (top.kind === 'array' && c === 0x5d)) {
          this.closeFrame();
          return false;
        }
        if (top.kind === 'object') return this.expectKey(c, i, top);
        return this.beginValue(chunk, i, c, this.childPath());
      case 'key':
        return this.expectKey(c, i, top);
      case 'colon':
        if (c !== 0x3a) this.fail('expected ":"', i);
        top.state = 'value';
        return false;
      case 'value':
        return this.beginValue(chunk, i, c, this.childPath());
      case 'comma':
        if (c === 0x2c) {
          if (top.kind === 'array') {
            top.index++;
            top.state = 'value';
          } else top.state = 'key';
          return false;
        }
        if ((top.kind === 'object' && c === 0x7d) || (top.kind === 'array' && c === 0x5d)) {
          this.closeFrame();
          return false;
        }
        return this.fail(`expected "," or "${top.kind === 'object' ? '}' : ']'}"`, i);
    }
  }

  private expectKey(c: number, i: number, top: Frame): boolean {
    if (c !== 0x22) this.fail('expected a string key', i);
    top.state = 'colon';
    this.keyParts = ['"'];
    this.keyEscape = false;
    // The opening quote is consumed by the caller's i++; the key is scanned from the next character.
    return false;
  }

  /** Finds the closing quote of a key from `i`; -1 if the chunk ends first. Returns the index after it. */
  private scanKey(chunk: string, i: number): number {
    for (let j = i; j < chunk.length; j++) {
      const c = chunk.charCodeAt(j);
      if (this.keyEscape) this.keyEscape = false;
      else if (c === 0x5c) this.keyEscape = true;
      else if (c === 0x22) return j + 1;
    }
    return -1;
  }

  private finishKey(): void {
    const raw = (this.keyParts ?? []).join('');
    this.keyParts = null;
    let key: unknown;
    try {
      key = JSON.parse(raw);
    } catch {
      this.fail('invalid string key', 0);
    }
    if (key === '__proto__') this.fail('a "__proto__" key is refused (it could alter object prototypes)', 0);
    this.pendingKey = key as string;
  }

  private beginValue(chunk: string, i: number, c: number, path: (string | number)[]): boolean {
    const depth = this.stack.length + 1;
    const isContainer = c === 0x7b || c === 0x5b;
    if (isContainer && depth > this.options.maxDepth) throw new JsonDepthError(path, this.options.maxDepth);
    if (isContainer && !this.options.split(path, chunk[i] as string)) {
      const kind = c === 0x7b ? 'object' : 'array';
      const parent = this.stack[this.stack.length - 1];
      if (parent) parent.state = 'comma';
      this.stack.push({ kind, key: path[path.length - 1] ?? '', state: 'first', index: 0 });
      this.options.onEnter?.(path, kind);
      return false;
    }
    if (c === 0x7b || c === 0x5b) this.capture = { kind: 'container', depth: 0, inString: false, escape: false };
    else if (c === 0x22) this.capture = { kind: 'string', escape: false, opened: false };
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) this.capture = { kind: 'scalar' };
    else this.fail(`unexpected character ${JSON.stringify(chunk[i])}`, i);
    this.capturePath = path;
    this.captureParts = [];
    return true;
  }

  /** Scans a capture from `i`: the index just after its end, or -1 when the chunk ends first. */
  private scanCapture(chunk: string, i: number): number {
    const cap = this.capture as Capture;
    const n = chunk.length;
    if (cap.kind === 'scalar') {
      for (let j = i; j < n; j++) if (SCALAR_END.has(chunk.charCodeAt(j))) return j;
      return -1;
    }
    if (cap.kind === 'string') {
      let j = i;
      if (!cap.opened) {
        // The opening quote is the capture's first character.
        cap.opened = true;
        j++;
      }
      for (; j < n; j++) {
        const c = chunk.charCodeAt(j);
        if (cap.escape) cap.escape = false;
        else if (c === 0x5c) cap.escape = true;
        else if (c === 0x22) return j + 1;
      }
      return -1;
    }
    const skeletonDepth = this.stack.length;
    for (let j = i; j < n; j++) {
      const c = chunk.charCodeAt(j);
      if (cap.inString) {
        if (cap.escape) cap.escape = false;
        else if (c === 0x5c) cap.escape = true;
        else if (c === 0x22) cap.inString = false;
        continue;
      }
      if (c === 0x22) cap.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        cap.depth++;
        if (skeletonDepth + cap.depth > this.options.maxDepth) throw new JsonDepthError(this.capturePath, this.options.maxDepth);
      } else if (c === 0x7d || c === 0x5d) {
        cap.depth--;
        if (cap.depth === 0) return j + 1;
      }
    }
    return -1;
  }

  private finishCapture(): void {
    const raw = this.captureParts.join('');
    this.captureParts = [];
    this.capture = null;
    const replacement = this.options.onValue(this.capturePath, raw);
    if (this.options.onSkeleton) {
      this.flushSkeleton();
      this.options.onSkeleton(typeof replacement === 'string' ? replacement : raw);
    }
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.state = 'comma';
    else this.rootDone = true;
  }

  private closeFrame(): void {
    this.stack.pop();
    if (this.stack.length === 0) this.rootDone = true;
  }

  /** Whether any non-whitespace has been read. */
  get started(): boolean {
    return this.rootStarted;
  }
}
