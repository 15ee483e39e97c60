import { z } from 'zod';

/** Lower-case letters, digits and '-', up to 64 characters: an id is also a file name. */
export const SuiteIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a suite id is lower-case letters, digits and -');
export const ScenarioIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a scenario id is lower-case letters, digits and -');
