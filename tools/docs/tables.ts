/**
 * The tables of docs/ generated from the code's registries (read through ./sources.ts), and
 * their place in the pages: between `<!-- generated:NAME -->` and `<!-- /generated -->`.
 * `npm run docs:tables` rewrites them; tests/self/docs-tables.spec.ts fails when a committed
 * page differs from what this renders. The pages are formatted with the project's Prettier
 * settings after the tables go in, so the check and `npm run format:check` agree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import {
  configVariables,
  layers,
  operations,
  oracles,
  otherVariables,
  probes,
  reports,
  requirements,
  type OtherVariableKind,
} from './sources.ts';
import { own } from '../../exchange/own.ts';

/** The pages that hold generated tables, relative to the project's root. */
export const GENERATED_PAGES = [
  'docs/configuration.md',
  'docs/what-is-checked.md',
  'docs/reports-and-gate.md',
  'docs/writing-checks.md',
] as const;

/** One cell of a Markdown table: pipes escaped, `<` outside code spans written as an entity. */
export function cell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;')))
    .join('')
    .replaceAll('|', '\\|');
}

/** A code span in a table cell: its pipes escaped too, as GFM tables need. */
const code = (s: string): string => `\`${s.replaceAll('|', '\\|')}\``;

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

const list = (ids: readonly string[]): string => (ids.length === 0 ? '' : ids.map(code).join(', '));

function variablesTable(): string {
  return table(
    ['Variable', 'Flag', 'Group', 'What it sets'],
    configVariables().map((v) => [
      code(v.name),
      v.flag === '' ? 'none' : code(v.flag),
      v.group,
      cell(v.help),
    ]),
  );
}

const KIND: Record<OtherVariableKind, string> = {
  process: 'process environment',
  internal: 'internal: never set it',
  development: 'development',
};

function environmentTable(): string {
  return table(
    ['Variable', 'Kind', 'Read by', 'What it is'],
    otherVariables().map((v) => [
      v.name.split(', ').map(code).join(', '),
      KIND[v.kind],
      v.external ? cell(v.readBy) : code(v.readBy),
      cell(v.help),
    ]),
  );
}

function requirementsTables(): string {
  const groups = new Map<string, ReturnType<typeof requirements>>();
  for (const r of requirements()) groups.set(r.groupTitle, [...(groups.get(r.groupTitle) ?? []), r]);
  return [...groups]
    .map(
      ([title, rows]) =>
        `### ${title}\n\n` +
        table(
          ['Requirement', 'Level', 'Statement', 'Rests on'],
          rows.map((r) => [
            code(r.id),
            r.level,
            cell(r.statement),
            `“${cell(r.quote.text)}” (${cell(r.quote.source)})`,
          ]),
        ),
    )
    .join('\n\n');
}

const ORACLE_KIND = {
  exchange: 'every exchange it applies to',
  patch: 'a PATCH with the reads before and after it',
  pair: 'two reads of one counterparty, no PATCH between',
  metadata: 'a HEAD or 304 of a counterparty, with the latest answer that carried it',
} as const;

function oraclesTable(): string {
  return table(
    ['Oracle', 'Judges', 'Requirements'],
    oracles().map((o) => [`[${code(o.id)}](../${o.file})`, ORACLE_KIND[o.kind], list(o.requirements)]),
  );
}

function probesTable(): string {
  return table(
    ['Probe', 'Access', 'Operations', 'Judges itself', 'What it sends'],
    probes().map((p) => [
      `[${code(p.id)}](../${p.file})`,
      p.placement === '' ? p.access : `${p.access}, ${p.placement}`,
      list(p.operations),
      p.judges.length === 0 ? 'none: the oracles judge its traffic' : list(p.judges),
      cell(p.title),
    ]),
  );
}

function operationsTable(): string {
  return table(
    ['Operation', 'Method and path', 'Summary'],
    operations().map((o) => [code(o.operationId), code(`${o.method} ${o.path}`), cell(o.summary)]),
  );
}

function reportsTable(): string {
  return table(
    ['Report', 'Files', 'Written by', 'What it is'],
    reports().map((r) => [code(r.name), r.files.map(code).join(', '), r.commands, cell(r.about)]),
  );
}

/** The layers: a floor's number on its first room only, so the floors read as bands. */
function layersTable(): string {
  return table(
    ['Floor', 'Room', 'What it holds', 'It imports'],
    layers().map((r, i, all) => [
      i > 0 && all[i - 1]!.floor === r.floor ? '' : String(r.floor),
      r.room === './' ? 'the root' : code(r.room),
      cell(r.holds),
      cell(r.imports),
    ]),
  );
}

/** Every generated table, by the name its markers carry. */
export function renderTables(): Record<string, string> {
  return {
    variables: variablesTable(),
    environment: environmentTable(),
    requirements: requirementsTables(),
    oracles: oraclesTable(),
    probes: probesTable(),
    operations: operationsTable(),
    reports: reportsTable(),
    layers: layersTable(),
  };
}

const BLOCK = /(<!-- generated:([a-z-]+) -->)[\s\S]*?(<!-- \/generated -->)/g;

/** The names of the generated blocks a page holds, in order. */
export function blocksIn(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[2]!);
}

/** `text` with each generated block replaced by its table; an unknown block name is an error. */
export function fillBlocks(text: string, tables: Record<string, string>): string {
  return text.replace(BLOCK, (_all, open: string, name: string, close: string) => {
    const body = own(tables, name);
    if (body === undefined)
      throw new Error(`unknown generated block '${name}' (known: ${Object.keys(tables).join(', ')})`);
    return `${open}\n\n${body}\n\n${close}`;
  });
}

/** A page as `npm run docs:tables` writes it: its tables filled in, formatted as Prettier would. */
export async function renderPage(root: string, page: string, tables = renderTables()): Promise<string> {
  const path = join(root, page);
  const filled = fillBlocks(readFileSync(path, 'utf8'), tables);
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(filled, { ...options, filepath: path });
}

/** Rewrites the generated tables of every page; returns the pages that changed. */
export async function writePages(root: string): Promise<string[]> {
  const tables = renderTables();
  const changed: string[] = [];
  for (const page of GENERATED_PAGES) {
    const path = join(root, page);
    const next = await renderPage(root, page, tables);
    if (next !== readFileSync(path, 'utf8')) {
      writeFileSync(path, next);
      changed.push(page);
    }
  }
  return changed;
}
