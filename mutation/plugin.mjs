/**
 * Stryker loads its plugins in its main process and in each worker by plain `import`, without
 * a TypeScript loader. This shim registers the project's loader (tsx) in whichever process loads
 * it, then hands over the plugin written in TypeScript (mutation/runner.ts), so neither
 * `npm run mutation` nor Stryker's workers need a loader flag.
 */
import { register } from 'tsx/esm/api';

register();

export const { strykerPlugins } = await import('./runner.ts');
