import type { ComponentType } from 'react';
import type { JobEvent, JobKind, JobRecordOf } from '../../../../shared';

/** What a kind's section of the job page gets: its job (typed by kind) and the job's events so far. */
export type KindViewProps<K extends JobKind> = { job: JobRecordOf<K>; events: readonly JobEvent[]; terminal: boolean };

/**
 * A job kind's own part of the job page, between the common summary (status, times, machine)
 * and the common event log: phases, answer, endpoint, results…
 */
export type KindView<K extends JobKind> = ComponentType<KindViewProps<K>>;
