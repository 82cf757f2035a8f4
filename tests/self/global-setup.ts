/**
 * Clears the gallery results of an earlier run, so coverage is judged on this run only, and makes
 * the directory the packed project is installed in once for the specs that need it
 * (tests/self/pack-fixtures.ts), removed at the end.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { preparePackDirectory } from './pack-fixtures.ts';

export default function globalSetup(): () => void {
  rmSync(join('test-results', 'gallery-results'), { recursive: true, force: true });
  return preparePackDirectory();
}
