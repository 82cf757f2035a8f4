/**
 * The Action's own run step, as GitHub runs it: its `run:` script from action.yml, run by
 * `bash --noprofile --norc -eo pipefail` with the inputs in the environment as the step maps them
 * (an input not given gets its default), GITHUB_ACTION_PATH the suite as the Action's install step
 * leaves it (the built package: the installed tarball of tests/self/pack-fixtures.ts), and the
 * variables the caller gives the step.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './cli-fixtures.ts';

export interface ActionStep {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  'working-directory'?: string;
  id?: string;
}

export interface Action {
  name?: string;
  description?: string;
  inputs: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs?: Record<string, { description?: string; value?: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** The step that runs the suite (id `run`). */
export const runStepOfAction = action.runs.steps.find((s) => s.id === 'run')!;

/**
 * The command line and environment of the step that runs the suite, with `inputs` and
 * `callerEnv`, its script written into `cwd` (the workspace); `actionPath` holds the built suite.
 */
export function actionRunStep(
  inputs: Record<string, string>,
  cwd: string,
  actionPath: string,
  callerEnv: Record<string, string> = {},
): { command: string; args: string[]; env: Record<string, string> } {
  const step = runStepOfAction;
  const script = join(cwd, 'step.sh');
  writeFileSync(script, step.run!);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? cwd,
    GITHUB_ACTION_PATH: actionPath,
    GITHUB_OUTPUT: join(cwd, 'github-output'),
    ...callerEnv,
  };
  for (const [name, input] of Object.entries(action.inputs)) {
    const variable = `INPUT_${name.toUpperCase().replaceAll('-', '_')}`;
    if (step.env?.[variable] !== undefined) env[variable] = inputs[name] ?? input.default ?? '';
  }
  return { command: 'bash', args: ['--noprofile', '--norc', '-eo', 'pipefail', script], env };
}
