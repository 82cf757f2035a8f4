/** Clears the gallery results of an earlier run, so coverage is judged on this run only. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

export default function globalSetup(): void {
  rmSync(join('test-results', 'gallery-results'), { recursive: true, force: true });
}
