/**
 * The flags that choose what a run does, parsed apart from the rest of the CLI's flags so any
 * front end can call it: --requirement, --operation, --level, --grep (what runs:
 * config/selection.ts), --case (one case of one property, as a replay line names it) and
 * --require-exercised (a stricter gate: its flag comes with its variable, config/flags.ts), as
 * flags of bin/args.ts.
 * Whether an id is known is checked when the configuration is resolved (exit 2, listing the
 * known ones).
 */
import { ConfigError } from '../config/error.ts';
import type { RunFlags } from '../run/resolve.ts';
import { parseLevel, type Level } from '../config/selection.ts';
import { UsageError, type Flag } from './args.ts';

/** What these flags add to the run's flags. */
export type SelectionFlagValues = Pick<
  RunFlags,
  'requirements' | 'operations' | 'levels' | 'grep' | 'replayCase' | 'requireExercised'
>;

/** The flags of the selection, the case and the stricter gate, for the `run` command's parser (bin/args.ts). */
export function selectionFlags(into: SelectionFlagValues): Flag[] {
  const group = 'Selection';
  const add = (name: Flag['name'], value: string, help: string, apply: (v: string) => void): Flag => ({
    name,
    value,
    group,
    help,
    apply: (v) => {
      if (v === undefined || v === '') throw new UsageError(`${name} needs a value (see --help)`);
      try {
        apply(v);
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message);
        throw error;
      }
    },
  });
  return [
    add('--requirement', '<id>', 'run only the probes that judge this requirement (repeatable)', (v) => {
      into.requirements = [...(into.requirements ?? []), v];
    }),
    add(
      '--operation',
      '<op>',
      'run only the probes that call this operation: an operationId or "METHOD /path"\n(repeatable)',
      (v) => {
        into.operations = [...(into.operations ?? []), v];
      },
    ),
    add(
      '--level',
      'must|should',
      'run only the probes aiming at requirements of this level, and select only those\nrequirements',
      (v) => {
        into.levels = [...new Set<Level>([...(into.levels ?? []), parseLevel(v)])];
      },
    ),
    add(
      '--grep',
      '<regex>',
      "run only the probes whose test title matches, as Playwright's --grep:\n" +
        '"<spec file> <probe id>: <title> @read|@write @must @should". The selection flags narrow\n' +
        'each other; a requirement outside the selection that nothing judged is reported as not\n' +
        'selected, never passed',
      (v) => {
        if (into.grep !== undefined)
          throw new UsageError('--grep may be given once: join the patterns with |');
        into.grep = v;
      },
    ),
    add(
      '--case',
      "'<property>@<path>'",
      "replay one case of one property (a finding's replay line names it; needs one --probe)",
      (v) => {
        into.replayCase = v;
      },
    ),
  ];
}
