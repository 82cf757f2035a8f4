#!/usr/bin/env node
// The `payflow-conformance` command (package.json "bin"), run by plain node: the suite is
// TypeScript, so this registers tsx (a dependency) for this process and loads the CLI.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
