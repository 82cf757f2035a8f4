#!/usr/bin/env node
// The `payflow-conformance` command of a clone, run by plain node: the suite is TypeScript, so
// this registers tsx (a development dependency) for this process and loads the CLI. The package's
// bin is the compiled dist/bin/cli.js (npm run build), which needs no loader.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
