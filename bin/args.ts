/**
 * The command lines of the commands (bin/cli.ts run, validate, merge): each command declares its
 * flags as a list of Flag (a name, a value placeholder or none, a --help line, and what one
 * occurrence does), and parseArgs reads the arguments against that list. A module adds flags to
 * a command by adding its Flag list to the command's: the parsing and the --help text follow.
 *
 * `--name value` and `--name=value` are the same; a value may be empty (`--name=` or `--name ''`:
 * for a configuration variable, set but empty) but may not start with `--` (a forgotten value).
 * A switch takes no value.
 */
import { VARIABLE_HELP, variableFlags, type ConfigVariable, type FlagGroup } from '../config/flags.ts';
import type { Env } from '../config/error.ts';
import { REPORT_WRITERS, SOURCE_COMMANDS } from '../reporter/writers.ts';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Flag {
  name: `--${string}`;
  /** The value's placeholder (`<url>`); absent: a switch. */
  value?: string;
  /** The variable it sets, named in --help. */
  variable?: string;
  /** The --help text: what it does (lines of at most about 90 characters). */
  help: string;
  /** The --help section it is listed under. */
  group: string;
  /** What the usage error of a missing value says it needs (default: `a value <placeholder>`). */
  needs?: string;
  /** One occurrence: `value` is undefined for a switch. May throw a UsageError. */
  apply(value: string | undefined): void;
}

/**
 * Reads `args` against `flags`; every other argument starting with `-` is a UsageError, and the
 * rest go to `positional` (a UsageError when it is not given).
 */
export function parseArgs(
  args: readonly string[],
  flags: readonly Flag[],
  positional?: (arg: string) => void,
): void {
  const byName = new Map(flags.map((f) => [f.name, f]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const flag = byName.get(name as `--${string}`);
    if (flag === undefined) {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown argument ${arg} (see --help)`);
      if (positional === undefined) throw new UsageError(`unexpected argument ${arg} (see --help)`);
      positional(arg);
      continue;
    }
    if (flag.value === undefined) {
      if (eq > 0) throw new UsageError(`${name} takes no value (see --help)`);
      flag.apply(undefined);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value.startsWith('--'))
      throw new UsageError(`${name} needs ${flag.needs ?? `a value ${flag.value} (see --help)`}`);
    flag.apply(value);
  }
}

const GROUP_TITLES: Record<FlagGroup, string> = {
  target: 'The target',
  inputs: 'Generated inputs',
  politeness: 'Politeness and limits',
  gate: 'Reports and the gate',
};

/**
 * The flags that set configuration variables (`variables`, default every one with a value flag),
 * each recording its value in `into` under the variable's name: resolveRun's `variables`.
 */
export function configurationFlags(into: Env, variables?: readonly ConfigVariable[]): Flag[] {
  return variableFlags(variables).map((v) => ({
    name: v.flag,
    value: v.value,
    variable: v.variable,
    help: v.help,
    group: GROUP_TITLES[v.group],
    apply: (value) => {
      into[v.variable] = value;
    },
  }));
}

/** The --strict switch (CONFORMANCE_STRICT=1): it can only turn strict mode on. */
export function strictFlag(set: () => void): Flag {
  return {
    name: '--strict',
    variable: 'CONFORMANCE_STRICT=1',
    help: VARIABLE_HELP.CONFORMANCE_STRICT.help.replace(/ \(CONFORMANCE_STRICT=1\)$/, ''),
    group: GROUP_TITLES.gate,
    apply: set,
  };
}

/** The --embedded switch (CONFORMANCE_EMBEDDED=1): the embedded reference server, asked for by name. */
export function embeddedFlag(into: Env): Flag {
  return {
    name: '--embedded',
    variable: 'CONFORMANCE_EMBEDDED=1',
    help: VARIABLE_HELP.CONFORMANCE_EMBEDDED.help.replace(/ \(CONFORMANCE_EMBEDDED=1\)/, ''),
    group: GROUP_TITLES.target,
    apply: () => {
      into.CONFORMANCE_EMBEDDED = '1';
    },
  };
}

/** The lines of --help saying where the token comes from; `role`: what it is to the command. */
export function tokenHelp(role = 'the bearer token, required with a base URL'): string {
  return (
    `API_TOKEN (${role}) is read from the environment or .env only, never from a flag,\n` +
    'so that it lands in neither shell history nor a process list. It is sent only to the\n' +
    'target and shown as $API_TOKEN in every report, log and curl command.'
  );
}

/**
 * The flags listed by group, in the order the groups first appear, for --help: each flag with
 * the variable it sets, and below it what it does.
 */
export function formatFlags(flags: readonly Flag[]): string {
  const groups = new Map<string, Flag[]>();
  for (const f of flags) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  const label = (f: Flag): string => (f.value === undefined ? f.name : `${f.name} ${f.value}`);
  const width = Math.max(...flags.map((f) => label(f).length)) + 2;
  const lines: string[] = [];
  for (const [group, members] of groups) {
    lines.push('', `${group}:`);
    for (const f of members) {
      lines.push(`  ${label(f).padEnd(width)}${f.variable ?? ''}`.trimEnd());
      for (const line of f.help.split('\n')) lines.push(`      ${line}`);
    }
  }
  return lines.slice(1).join('\n');
}

/**
 * The lines of --help listing the reports `--report` chooses from (reporter/writers.ts): each
 * name, its files, what it is and which commands write it.
 */
export function reportsHelp(): string {
  const width = Math.max(...REPORT_WRITERS.map((w) => w.name.length)) + 2;
  return [
    'Reports (--report <name,...> or CONFORMANCE_REPORT; default: every one the command writes):',
    ...REPORT_WRITERS.flatMap((w) => [
      `  ${w.name.padEnd(width)}${w.files.join(', ')} (${SOURCE_COMMANDS[w.source]})`,
      `  ${''.padEnd(width)}${w.about}`,
    ]),
  ].join('\n');
}
