import { Worker } from 'node:worker_threads';
import type { LevelDone, MainToWorker, WorkerBody, WorkerLevelPlan, WorkerLimits, WorkerRecord, WorkerTarget, WorkerToMain } from './protocol';
import { workerSource } from './source';

/**
 * The main thread's side of the load generator: one worker thread per serving job, which owns the
 * sockets and the clock while this thread only builds request bodies on demand and folds the
 * records it gets back. The worker's heap is bounded, so a runaway answer costs it, not the app.
 */

export type GeneratorHandle = {
  /** Runs one level; every finished measured request goes to `onRecord` as it arrives. Rejects on abort (the worker is stopped). */
  runLevel(plan: WorkerLevelPlan, onRecord: (record: WorkerRecord) => void, signal: AbortSignal): Promise<LevelDone>;
  close(): Promise<void>;
};

/** The worker's V8 heap limit: records and line buffers need a few MB; this leaves room and still bounds a runaway. */
const WORKER_HEAP_MB = 256;

export function startGenerator(target: WorkerTarget, limits: WorkerLimits, bodies: (count: number) => WorkerBody[]): GeneratorHandle {
  const worker = new Worker(workerSource(), { eval: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }, stdout: false, stderr: false });
  // The worker keeps nothing alive on its own: a job that ends without close() does not hold the process open.
  worker.unref();
  const send = (message: MainToWorker) => worker.postMessage(message);
  send({ type: 'init', target, limits });

  let current: { onRecord: (r: WorkerRecord) => void; resolve: (d: LevelDone) => void; reject: (e: Error) => void } | null = null;
  let dead: Error | null = null;
  const fail = (error: Error) => {
    dead ??= error;
    current?.reject(error);
    current = null;
  };
  worker.on('message', (message: WorkerToMain) => {
    switch (message.type) {
      case 'need':
        send({ type: 'bodies', bodies: bodies(message.count) });
        return;
      case 'records':
        for (const record of message.records) current?.onRecord(record);
        return;
      case 'level-done':
        current?.resolve(message.done);
        current = null;
        return;
      case 'fatal':
        fail(new Error(`the load generator failed: ${message.message}`));
    }
  });
  worker.on('error', (error) => fail(new Error(`the load generator stopped: ${error.message}`)));
  worker.on('exit', (code) => fail(new Error(`the load generator exited (code ${code})`)));

  return {
    runLevel(plan, onRecord, signal) {
      if (dead) return Promise.reject(dead);
      if (signal.aborted) return Promise.reject(abortReason(signal));
      return new Promise<LevelDone>((resolve, reject) => {
        const onAbort = () => {
          // Stopping the thread closes every socket at once: the requests in flight end now.
          void worker.terminate();
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = () => signal.removeEventListener('abort', onAbort);
        current = {
          onRecord,
          resolve: (done) => (settle(), resolve(done)),
          reject: (error) => (settle(), reject(error)),
        };
        send({ type: 'level', plan });
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`aborted: ${String(signal.reason)}`);
}
