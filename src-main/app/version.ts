import pkg from '../../package.json' with { type: 'json' };

/** benchdesk's version (package.json), in a module of its own: the CLI shows it without loading the engine. */
export const VERSION: string = pkg.version;
