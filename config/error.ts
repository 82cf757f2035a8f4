/**
 * What every part of the configuration shares: the map of variables it is read from, and the
 * error it throws, one line saying what to fix (config/config.ts, config/headers.ts, the waiver
 * file, the input files): the CLI prints that line and exits 2, before a request is sent.
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;
