/**
 * The flags that choose what a run does, parsed apart from the rest of the CLI's flags so any
 * front end can call it: --requirement, --operation, --level, --grep (what runs:
 * config/selection.ts), --case (one case of one property, as a replay line names it) and
 * --require-exercised (a stricter gate). Each takes its value as the next argument or after '='.
 * Whether an id is known is checked when the configuration is resolved (exit 2, listing the
 * known ones).
 */
import { ConfigError } from '../config/config.ts';
import type { RunFlags } from '../config/resolve.ts';
import { parseLevel, type Level } from '../config/selection.ts';

/** What these flags add to the run's flags. */
export type SelectionFlagValues = Pick<
  RunFlags,
  'requirements' | 'operations' | 'levels' | 'grep' | 'replayCase' | 'requireExercised'
>;

export const SELECTION_USAGE = `  --requirement <id>   run only the probes that judge this requirement (repeatable)
  --operation <op>     run only the probes that call this operation: an operationId or
                       "METHOD /path" (repeatable)
  --level must|should  run only the probes aiming at requirements of this level, and select
                       only those requirements
  --grep <regex>       run only the probes whose test title matches, as Playwright's --grep:
                       "<spec file> <probe id>: <title> @read|@write @must @should"
                       The selection flags narrow each other; a requirement outside the selection
                       that nothing judged is reported as not selected, never passed.
  --case '<property>@<path>'  replay one case of one property (a finding's replay line names it)
  --require-exercised must|all  fail the gate when a selected MUST requirement (all: any
                       selected requirement) was not exercised (CONFORMANCE_REQUIRE_EXERCISED)`;

/**
 * Takes the selection flag at `args[i]`, if it is one, into `into`: returns how many arguments it
 * used (0: not a selection flag).
 */
export function takeSelectionFlag(args: readonly string[], i: number, into: SelectionFlagValues): number {
  const arg = args[i]!;
  const names = ['--requirement', '--operation', '--level', '--grep', '--case', '--require-exercised'];
  const name = names.find((n) => arg === n || arg.startsWith(`${n}=`));
  if (name === undefined) return 0;
  const inline = arg.length > name.length;
  const value = inline ? arg.slice(name.length + 1) : args[i + 1];
  if (value === undefined || value === '' || (!inline && value.startsWith('--')))
    throw new ConfigError(`${name} needs a value (see --help)`);
  switch (name) {
    case '--requirement':
      into.requirements = [...(into.requirements ?? []), value];
      break;
    case '--operation':
      into.operations = [...(into.operations ?? []), value];
      break;
    case '--level':
      into.levels = [...new Set<Level>([...(into.levels ?? []), parseLevel(value)])];
      break;
    case '--grep':
      if (into.grep !== undefined)
        throw new ConfigError('--grep may be given once: join the patterns with |');
      into.grep = value;
      break;
    case '--case':
      into.replayCase = value;
      break;
    case '--require-exercised':
      into.requireExercised = value;
      break;
  }
  return inline ? 1 : 2;
}
