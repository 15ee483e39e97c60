import { StringDecoder } from 'node:string_decoder';

/** What a program writes, kept within bounds: the head of stdout, the tail of stderr and its lines. */

const MAX_STDERR_LINE_CHARS = 4096;
const MAX_STDERR_LINES = 2000;

/**
 * Keeps stdout up to maxBytes. Beyond it, `push` says `truncated` (the first maxBytes are kept)
 * or, when the program's whole answer is needed, `overflow`: the run must fail.
 */
export class StdoutCollector {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly truncate: boolean,
  ) {}

  push(chunk: Buffer): 'kept' | 'truncated' | 'overflow' {
    this.bytes += chunk.length;
    if (this.bytes <= this.maxBytes) {
      this.chunks.push(chunk);
      return 'kept';
    }
    if (!this.truncate) return 'overflow';
    const room = this.maxBytes - (this.bytes - chunk.length);
    if (room > 0) this.chunks.push(chunk.subarray(0, room));
    return 'truncated';
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Keeps the last maxBytes of stderr and hands out complete lines. */
export class StderrCollector {
  private tail = '';
  private partial = '';
  private forwarded = 0;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly maxBytes: number,
    private readonly onLine?: (line: string) => void,
  ) {}

  push(chunk: Buffer): void {
    this.add(this.decoder.write(chunk));
  }

  end(): void {
    this.add(this.decoder.end());
    if (this.partial.length > 0) this.emit(this.partial);
    this.partial = '';
  }

  get text(): string {
    return this.tail;
  }

  private add(text: string): void {
    if (text.length === 0) return;
    this.tail += text;
    // Characters, not bytes: close enough for a bound and never splits a code point.
    if (this.tail.length > this.maxBytes) this.tail = this.tail.slice(this.tail.length - this.maxBytes);
    if (!this.onLine) return;
    this.partial += text;
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) >= 0) {
      this.emit(this.partial.slice(0, nl));
      this.partial = this.partial.slice(nl + 1);
    }
    if (this.partial.length > MAX_STDERR_LINE_CHARS) {
      this.emit(this.partial);
      this.partial = '';
    }
  }

  private emit(raw: string): void {
    if (!this.onLine) return;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    this.forwarded++;
    if (this.forwarded > MAX_STDERR_LINES + 1) return;
    if (this.forwarded === MAX_STDERR_LINES + 1) {
      this.onLine(`… further stderr lines not shown (over ${MAX_STDERR_LINES})`);
      return;
    }
    this.onLine(line.length > MAX_STDERR_LINE_CHARS ? line.slice(0, MAX_STDERR_LINE_CHARS) + '…' : line);
  }
}
