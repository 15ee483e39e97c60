export * from './jobs';
export * from './requests';
export * from './models';
export * from './problems';
export * from './health';
export * from './metrics';
export * from './api-paths';
export * from './ipc';
