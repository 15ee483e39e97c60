import type { AnyJobHandler, Logger } from '../engine/types';
import type { Config } from './config';
import type { Providers } from './providers';

export function createWorkflows(_deps: { config: Config; providers: Providers; log: Logger }): AnyJobHandler[] {
  return [];
}
