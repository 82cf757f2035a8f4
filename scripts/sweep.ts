/**
 * npm run sweep [-- --seeds <n>] [--from <seed>] [--runs <n>] [--servers <list>] [--workers <n>]:
 * the measure of false alarms. The whole suite, in write mode, against each conforming server (the
 * reference server, the independent implementation, and with `clean` the clean variants of the
 * gallery: a trailing replica, a duplicate-refusing service), once per seed, in this machine's
 * worker processes; every finding and every probe that could not complete is a false alarm or a
 * crash of the suite (0 is the bar), printed with the seed and server that show it, and a line
 * that replays it. Not part of npm test: 200 seeds take minutes.
 *
 * Seeds: `--from <seed>` sweeps <seed>, <seed>+1, ...; without it, `--seeds` seeds drawn at random
 * (printed), since the point is the inputs no fixed seed of npm test tries. Each run is in-process
 * (tests/self/suite-runner.ts runSuite, the engine the Playwright suite uses, on a virtual clock),
 * with the run's default cases per property (100) unless `--runs` says otherwise. The summary goes
 * to reports/sweep.json too.
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_RUNS } from '../config/config.ts';
import type { TargetConfig } from '../engine/types.ts';
import { CLEAN_GALLERY } from '../servers/gallery/index.ts';
import {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_ITEM_FIXTURES,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
} from '../servers/independent/server.ts';
import { ReferenceServer } from '../servers/reference.ts';
import { galleryTarget, runSuite, runVariant, type SuiteRun } from '../tests/self/suite-runner.ts';

/** One run of the sweep: a server and a seed. */
interface Task {
  server: string;
  seed: number;
  runs: number;
}

/** What one run found: nothing, when the suite is right about a conforming server. */
export interface TaskResult extends Task {
  findings: { requirement: string; probe: string; judgedBy: string; message: string; input?: string }[];
  incomplete: { probe: string; reason: string }[];
  requests: number;
  ms: number;
  /** The run itself threw (a crash of the suite). */
  crash?: string;
}

const ROOT = join(import.meta.dirname, '..');

/** The servers a sweep may run against, by name. */
const SERVERS = ['reference', 'independent', ...CLEAN_GALLERY.map((v) => v.id)] as const;

async function runTask(task: Task): Promise<TaskResult> {
  const started = performance.now();
  const settings = { seed: task.seed, runs: task.runs };
  let run: SuiteRun;
  try {
    if (task.server === 'reference') {
      const server = new ReferenceServer();
      const baseURL = await server.start(0);
      try {
        run = await runSuite({ ...galleryTarget(baseURL), ...settings });
      } finally {
        await server.stop();
      }
    } else if (task.server === 'independent') {
      const server = new IndependentServer({});
      const baseURL = await server.start(0);
      const target: TargetConfig = {
        baseURL,
        token: INDEPENDENT_TOKEN,
        counterpartyRef: INDEPENDENT_COUNTERPARTY,
        writableRef: INDEPENDENT_WRITABLE_COUNTERPARTY,
        accountFixture: INDEPENDENT_ACCOUNT_FIXTURE,
        itemFixtures: INDEPENDENT_ITEM_FIXTURES,
        ...settings,
      };
      try {
        run = await runSuite(target);
      } finally {
        await server.stop();
      }
    } else {
      const variant = CLEAN_GALLERY.find((v) => v.id === task.server);
      if (!variant) throw new Error(`no server ${task.server}`);
      run = await runVariant(variant, { all: true, target: settings });
    }
  } catch (error) {
    return {
      ...task,
      findings: [],
      incomplete: [],
      requests: 0,
      ms: performance.now() - started,
      crash: (error as Error).stack ?? String(error),
    };
  }
  return {
    ...task,
    findings: run.verdicts.flatMap((v) =>
      v.findings.map((f) => ({
        requirement: f.requirement,
        probe: f.probe,
        judgedBy: f.judgedBy,
        message: f.message,
        ...(f.input !== undefined ? { input: JSON.stringify(f.input).slice(0, 300) } : {}),
      })),
    ),
    incomplete: run.incomplete,
    requests: run.requests,
    ms: performance.now() - started,
  };
}

/** A worker: runs the tasks its parent sends, one at a time, and sends back each result. */
function worker(): void {
  process.on('message', (task: Task | 'done') => {
    if (task === 'done') process.exit(0);
    void runTask(task).then((result) => process.send!(result));
  });
  process.send!('ready');
}

function problemsOf(r: TaskResult): string[] {
  return [
    ...(r.crash ? [`crashed: ${r.crash.split('\n')[0]}`] : []),
    ...r.incomplete.map((i) => `${i.probe} could not complete: ${i.reason.slice(0, 300)}`),
    ...[
      ...new Set(
        r.findings.map(
          (f) => `${f.requirement} (${f.judgedBy}, sent by ${f.probe}): ${f.message.slice(0, 300)}`,
        ),
      ),
    ],
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '200' },
      from: { type: 'string' },
      runs: { type: 'string', default: String(DEFAULT_RUNS) },
      servers: { type: 'string', default: 'reference,independent' },
      workers: { type: 'string', default: String(Math.max(1, availableParallelism())) },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'usage: npm run sweep -- [--seeds 200] [--from <seed>] [--runs 100] [--servers reference,independent,clean] [--workers <n>]',
    );
    return;
  }
  const count = Number(values.seeds);
  const runs = Number(values.runs);
  const workers = Number(values.workers);
  const servers = values.servers
    .split(',')
    .flatMap((s) => (s === 'clean' ? CLEAN_GALLERY.map((v) => v.id) : [s.trim()]))
    .filter((s) => s !== '');
  for (const s of servers)
    if (!(SERVERS as readonly string[]).includes(s))
      throw new Error(`unknown server ${s}; known: ${SERVERS.join(', ')}, clean`);
  if (![count, runs, workers].every((n) => Number.isSafeInteger(n) && n > 0))
    throw new Error('--seeds, --runs and --workers take whole numbers above 0');
  const from = values.from === undefined ? undefined : Number(values.from);
  const seeds = Array.from({ length: count }, (_, i) =>
    from === undefined ? Math.floor(Math.random() * 0x7fffffff) : from + i,
  );
  const tasks: Task[] = seeds.flatMap((seed) => servers.map((server) => ({ server, seed, runs })));
  console.log(
    `sweep: ${seeds.length} seed(s) × ${servers.length} server(s) (${servers.join(', ')}), ${runs} case(s) per property, ` +
      `${workers} worker(s); seeds ${from === undefined ? `drawn: ${seeds.join(' ')}` : `${seeds[0]} to ${seeds.at(-1)}`}`,
  );
  const started = performance.now();
  const results: TaskResult[] = [];
  const queue = [...tasks];
  const self = fileURLToPath(import.meta.url);
  await Promise.all(
    Array.from({ length: Math.min(workers, tasks.length) }, async () => {
      const child = fork(self, ['--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`a sweep worker exited ${code ?? 'on a signal'}`)),
        );
        child.on('message', (message: TaskResult | 'ready') => {
          if (message !== 'ready') {
            results.push(message);
            const problems = problemsOf(message);
            const done = `[${String(results.length).padStart(String(tasks.length).length)}/${tasks.length}]`;
            console.log(
              `${done} ${message.server} seed ${message.seed}: ${problems.length === 0 ? 'clean' : `${problems.length} problem(s)`}, ` +
                `${message.requests} requests, ${(message.ms / 1000).toFixed(1)} s`,
            );
            for (const p of problems) console.log(`      ${p}`);
          }
          child.send(queue.shift() ?? 'done');
        });
      });
    }),
  );
  const failing = results.filter((r) => problemsOf(r).length > 0);
  const findings = results.reduce((n, r) => n + r.findings.length, 0);
  const incomplete = results.reduce((n, r) => n + r.incomplete.length + (r.crash ? 1 : 0), 0);
  const seconds = (performance.now() - started) / 1000;
  const reports = join(ROOT, 'reports');
  mkdirSync(reports, { recursive: true });
  writeFileSync(
    join(reports, 'sweep.json'),
    `${JSON.stringify({ seeds, servers, runs, seconds, findings, incomplete, failing }, null, 2)}\n`,
  );
  console.log(
    `sweep: ${results.length} run(s) in ${seconds.toFixed(0)} s: ${findings} finding(s), ${incomplete} could not complete ` +
      `or crashed, in ${failing.length} run(s); details in reports/sweep.json`,
  );
  for (const r of failing)
    console.log(
      `  replay: npm run sweep -- --seeds 1 --from ${r.seed} --servers ${r.server} --runs ${r.runs}`,
    );
  process.exitCode = failing.length > 0 ? 1 : 0;
}

if (process.argv.includes('--worker')) worker();
else await main();
