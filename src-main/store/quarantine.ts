import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DIR_MODE, FILE_MODE, fsyncPath } from './atomic-file';
import { LAYOUT } from './layout';
import type { LogFields, StoreLogger } from './types';

/**
 * Sets damaged data aside under `corrupt/<name>.<timestamp>` with a warn line, so nothing is ever
 * dropped silently and an operator can inspect or restore it.
 */
export class Quarantine {
  private counter = 0;
  readonly dir: string;

  constructor(
    dataDir: string,
    readonly logger: StoreLogger,
  ) {
    this.dir = path.join(dataDir, LAYOUT.corruptDir);
  }

  private target(name: string): string {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    this.counter++;
    return path.join(this.dir, `${name}.${stamp}${this.counter > 1 ? `.${this.counter}` : ''}`);
  }

  /** Renames the whole file into corrupt/. */
  async moveAside(filePath: string, reason: string, fields?: LogFields): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    const dest = this.target(path.basename(filePath));
    await fsp.rename(filePath, dest);
    this.logger.warn(`${reason}: moved ${filePath} aside to ${dest}`, { ...fields, file: filePath, moved_to: dest });
    return dest;
  }

  moveAsideSync(filePath: string, reason: string, fields?: LogFields): string {
    fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    const dest = this.target(path.basename(filePath));
    fs.renameSync(filePath, dest);
    this.logger.warn(`${reason}: moved ${filePath} aside to ${dest}`, { ...fields, file: filePath, moved_to: dest });
    return dest;
  }

  /** Copies the whole file into corrupt/ before the caller repairs it in place. */
  async copyAside(filePath: string, reason: string, fields?: LogFields): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    const dest = this.target(path.basename(filePath));
    await fsp.copyFile(filePath, dest);
    await fsyncPath(dest);
    this.logger.warn(`${reason}: copied ${filePath} to ${dest} before repairing it`, { ...fields, file: filePath, copied_to: dest });
    return dest;
  }

  /** Keeps some bytes (e.g. a torn tail cut off a log) under a name derived from their file. */
  async saveBytes(sourcePath: string, bytes: Buffer, reason: string, fields?: LogFields): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    const dest = this.target(path.basename(sourcePath));
    await fsp.writeFile(dest, bytes, { mode: FILE_MODE });
    await fsyncPath(dest);
    this.logger.warn(`${reason}: ${bytes.length} byte(s) of ${sourcePath} set aside in ${dest}`, {
      ...fields,
      file: sourcePath,
      bytes: bytes.length,
      saved_to: dest,
    });
    return dest;
  }
}
