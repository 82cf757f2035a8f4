/**
 * The type check of the static checks: what `tsc --noEmit` reports, then the data-key rule
 * (scripts/data-keys.ts), the import rule of the layers (scripts/layers.ts) and the size bounds
 * (scripts/sizes.ts) on the same program, so each rule costs its walk (some 0.1 s) and not a
 * second type check. Exit 1 if any
 * finds anything; `npm run typecheck` is tsc alone.
 *
 *   node --import tsx scripts/typecheck.ts      (node scripts/typecheck.ts on Node 22.18 and later)
 *
 * It and the rules' modules import nothing of the project and use only the syntax Node strips
 * itself (no parameter properties, no enums): scripts/static-checks.ts runs them without tsx
 * where Node can.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { dataKeyFindings, formatFinding, projectProgram } from './data-keys.ts';
import { formatLayerFinding, programLayerFindings } from './layers.ts';
import { formatSizeFinding, sizeFindings } from './sizes.ts';

const ROOT = join(import.meta.dirname, '..');

const program = projectProgram(ROOT);
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0)
  process.stdout.write(
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );
const findings = dataKeyFindings(program, ROOT);
for (const f of findings) process.stdout.write(`${formatFinding(f)}\n`);
if (findings.length > 0)
  process.stdout.write(`data-key rule: ${findings.length} lookup(s) of a string key in a plain object\n`);
const layers = programLayerFindings(program, ROOT);
for (const f of layers) process.stdout.write(`${formatLayerFinding(f)}\n`);
if (layers.length > 0) process.stdout.write(`layers: ${layers.length} import(s) against the layers\n`);
const sizes = sizeFindings(program.getSourceFiles(), ROOT);
for (const f of sizes) process.stdout.write(`${formatSizeFinding(f)}\n`);
if (sizes.length > 0)
  process.stdout.write(`sizes: ${sizes.length} file(s) or function(s) over their bound\n`);
process.exit(diagnostics.length + findings.length + layers.length + sizes.length > 0 ? 1 : 0);
