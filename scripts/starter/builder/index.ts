/** The starter-suite builder (scripts/starter): typed helpers that write consistent snapshots. */
export * from './apps';
export * from './cluster';
export * from './clock';
export * from './jobs';
export * from './network';
export * from './nodes';
export * from './objects';
export * from './pods';
export * from './system';
export * from './workloads';
export * from './stories';
