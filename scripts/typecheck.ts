/**
 * The type check of the static checks: what `tsc --noEmit` reports, then the data-key rule
 * (scripts/data-keys.ts) on the same program, so the rule costs its walk (some 0.1 s) and not a
 * second type check. Exit 1 if either finds anything; `npm run typecheck` is tsc alone.
 *
 *   node --import tsx scripts/typecheck.ts      (node scripts/typecheck.ts on Node 22.18 and later)
 *
 * It and scripts/data-keys.ts import nothing of the project and use only the syntax Node strips
 * itself (no parameter properties, no enums): scripts/static-checks.ts runs them without tsx
 * where Node can.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { dataKeyFindings, formatFinding, projectProgram } from './data-keys.ts';

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
process.exit(diagnostics.length > 0 || findings.length > 0 ? 1 : 0);
