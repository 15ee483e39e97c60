import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';

/**
 * A fault-injecting file-system layer for tests: while `full` is on, writes to files under `dir`
 * fail the way a full disk fails them (a short write first, then ENOSPC), as do fsync and the
 * one-shot writeFile/appendFile calls. Works without root or tmpfs, so CI always runs it.
 * Writes through stubborn-fs (conf's sync writes, bound at import) are not intercepted.
 */
export type DiskFull = {
  full: boolean;
  /**
   * A nearly full disk: while set (and `full` is off), a single write larger than this many bytes
   * is refused with ENOSPC and smaller ones go through, so a small probe file fits where a batch
   * does not. null = no limit.
   */
  room: number | null;
  /** Writes refused so far (for "the test did hit the fault" checks). */
  readonly refused: number;
  restore(): void;
};

function enospc(syscall: string, p?: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${syscall}${p ? ` '${p}'` : ''}`);
  err.code = 'ENOSPC';
  err.errno = -28;
  err.syscall = syscall;
  if (p) err.path = p;
  return err;
}

/** What the spies share: the state a test sets, which paths and handles are under `dir`, and the spies to restore. */
type Fault = {
  state: { full: boolean; refused: number; room: number | null };
  inside(p: unknown): boolean;
  /** FileHandles opened under `dir`. */
  handles: WeakSet<object>;
  sizeOf(data: unknown): number;
  tooBig(bytes: number): boolean;
  spies: { mockRestore(): void }[];
};

/** FileHandle is not exported: take its prototype from a real handle. */
async function fileHandlePrototype(): Promise<Record<string, (...args: unknown[]) => Promise<unknown>>> {
  const probePath = path.join(os.tmpdir(), `benchdesk-diskfull-${process.pid}`);
  await fsp.writeFile(probePath, '');
  const probe = await fsp.open(probePath, 'r');
  const proto = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  await probe.close();
  await fsp.rm(probePath, { force: true });
  return proto;
}

/** fsp.open marks the handles under `dir`; their write, sync, datasync, writeFile and appendFile fail. */
function spyFileHandles({ state, inside, handles, sizeOf, tooBig, spies }: Fault, proto: Record<string, (...args: unknown[]) => Promise<unknown>>): void {
  const realOpen = fsp.open.bind(fsp);
  spies.push(
    vi.spyOn(fsp, 'open').mockImplementation(async (p, flags, mode) => {
      const fh = await realOpen(p, flags, mode);
      if (inside(p)) handles.add(fh);
      return fh;
    }),
  );

  const realWrite = proto.write as (this: object, ...args: unknown[]) => Promise<{ bytesWritten: number; buffer: unknown }>;
  const partial = new WeakSet<object>();
  spies.push(
    vi.spyOn(proto, 'write').mockImplementation(async function (this: object, ...args: unknown[]) {
      if (!state.full && handles.has(this)) {
        const [data, offset, length] = args as [unknown, unknown, unknown];
        const bytes = typeof length === 'number' ? length : sizeOf(data) - (typeof offset === 'number' ? offset : 0);
        if (tooBig(bytes)) {
          state.refused++;
          throw enospc('write');
        }
      }
      if (state.full && handles.has(this)) {
        const [buffer, offset, length] = args as [Buffer, number | undefined, number | undefined];
        // A full disk first takes what fits (a short write), then refuses: that leaves partial lines.
        if (!partial.has(this) && Buffer.isBuffer(buffer) && (length ?? buffer.length) > 8) {
          partial.add(this);
          return realWrite.call(this, buffer, offset ?? 0, 8);
        }
        state.refused++;
        throw enospc('write');
      }
      return realWrite.apply(this, args);
    }),
  );
  for (const name of ['sync', 'datasync', 'writeFile', 'appendFile'] as const) {
    const real = proto[name] as (this: object, ...args: unknown[]) => Promise<unknown>;
    spies.push(
      vi.spyOn(proto, name).mockImplementation(async function (this: object, ...args: unknown[]) {
        if ((state.full || ((name === 'writeFile' || name === 'appendFile') && tooBig(sizeOf(args[0])))) && handles.has(this)) {
          state.refused++;
          throw enospc(name === 'sync' || name === 'datasync' ? 'fsync' : 'write');
        }
        return real.apply(this, args);
      }),
    );
  }
}

/** The one-shot fs/promises calls: writeFile, appendFile and copyFile into `dir`. */
function spyPromiseFs({ state, inside, sizeOf, tooBig, spies }: Fault): void {
  for (const name of ['writeFile', 'appendFile', 'copyFile'] as const) {
    const real = fsp[name].bind(fsp) as (...args: unknown[]) => Promise<void>;
    spies.push(
      vi.spyOn(fsp, name).mockImplementation(async (...args: unknown[]) => {
        const target = name === 'copyFile' ? args[1] : args[0];
        if ((state.full || (name !== 'copyFile' && tooBig(sizeOf(args[1])))) && inside(target)) {
          state.refused++;
          throw enospc(name === 'copyFile' ? 'copyfile' : 'open', String(target));
        }
        return real(...args);
      }),
    );
  }
}

/** Callback fs (the store's job files and event appends use it): a short write first, then ENOSPC. */
function spyCallbackFs({ state, inside, sizeOf, tooBig, spies }: Fault): void {
  for (const name of ['writeFile', 'appendFile'] as const) {
    const real = fs[name] as unknown as (...args: unknown[]) => void;
    spies.push(
      vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
        const cb = args[args.length - 1] as (err: NodeJS.ErrnoException | null) => void;
        if (!state.full && tooBig(sizeOf(args[1])) && inside(args[0])) {
          state.refused++;
          process.nextTick(cb, enospc('write', String(args[0])));
          return;
        }
        if (state.full && inside(args[0])) {
          state.refused++;
          // A full disk takes what fits first: a partial line behind an append, and a file cut
          // short by a rewrite (writeFile truncates the file before it writes).
          const data = args[1];
          if ((typeof data === 'string' || Buffer.isBuffer(data)) && data.length > 8) {
            real(args[0], data.slice(0, 8), () => process.nextTick(cb, enospc('write', String(args[0]))));
            return;
          }
          process.nextTick(cb, enospc(name === 'writeFile' ? 'open' : 'write', String(args[0])));
          return;
        }
        real(...args);
      }) as never),
    );
  }
}

/** Synchronous writes to files opened under `dir` with openSync. */
function spySyncFs({ state, inside, spies }: Fault): void {
  const syncFds = new Set<number>();
  const realWriteSync = fs.writeSync;
  spies.push(
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
      if (state.full && syncFds.has(fd)) {
        state.refused++;
        throw enospc('write');
      }
      return (realWriteSync as (...a: unknown[]) => number)(fd, ...rest);
    }) as typeof fs.writeSync),
  );
  const realOpenSync = fs.openSync;
  spies.push(
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      const fd = (realOpenSync as (...a: unknown[]) => number)(p, ...rest);
      if (inside(p)) syncFds.add(fd);
      return fd;
    }) as typeof fs.openSync),
  );
}

export async function injectDiskFull(dir: string): Promise<DiskFull> {
  const root = path.resolve(dir);
  const state: Fault['state'] = { full: false, refused: 0, room: null };
  const fault: Fault = {
    state,
    inside: (p) => {
      const s = p instanceof URL ? p.pathname : typeof p === 'string' ? p : p instanceof Buffer ? p.toString() : '';
      return s !== '' && path.resolve(s).startsWith(root + path.sep);
    },
    handles: new WeakSet<object>(),
    sizeOf: (data) => (typeof data === 'string' ? Buffer.byteLength(data) : ArrayBuffer.isView(data) ? data.byteLength : 0),
    tooBig: (bytes) => state.room !== null && bytes > state.room,
    spies: [],
  };
  spyFileHandles(fault, await fileHandlePrototype());
  spyPromiseFs(fault);
  spyCallbackFs(fault);
  spySyncFs(fault);
  const spies = fault.spies;

  return {
    get full() {
      return state.full;
    },
    set full(v: boolean) {
      state.full = v;
    },
    get refused() {
      return state.refused;
    },
    get room() {
      return state.room;
    },
    set room(v: number | null) {
      state.room = v;
    },
    restore() {
      for (const s of spies.reverse()) s.mockRestore();
    },
  };
}
