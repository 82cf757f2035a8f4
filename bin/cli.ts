#!/usr/bin/env node
/**
 * payflow-conformance: the installed command (the package's bin, compiled to dist/bin/cli.js; in
 * a clone bin/payflow-conformance.mjs runs this through tsx).
 * One subcommand per entry point of the repository, each with its own --help:
 *   run       the suite (npm run conformance, bin/conformance.ts)
 *   validate  recorded or proxied traffic (npm run validate, bin/validate.ts)
 *   merge     the blob reports of a sharded run (npm run conformance:merge, bin/merge-shards.ts)
 *   serve     the reference server alone, to try the suite or develop a client (bin/serve.ts)
 * Each command exits with its own status; a missing or unknown command is a usage error (2).
 * A command's module is loaded when it is chosen, so --help loads none of the suite.
 */
import { commandPrefix } from '../config/command.ts';
import { fail, PLAYWRIGHT_CLI, playwrightProcessEnv, ROOT, runMain } from './run-support.ts';
import { enableCompileCache } from './compile-cache.ts';
import { packageVersion, printedVersion } from './version.ts';

const COMMANDS: Record<string, { summary: string; main: (args: readonly string[]) => Promise<void> }> = {
  run: {
    summary: 'run the conformance suite against a deployment, or the embedded reference server',
    main: async (args) => {
      // Playwright's runner loads while the command's own modules do (bin/warm-runner.ts).
      if (!args.includes('--help') && !args.includes('-h'))
        (await import('./warm-runner.ts')).prestartRunner(
          PLAYWRIGHT_CLI,
          ROOT,
          playwrightProcessEnv(process.env),
        );
      return (await import('./conformance.ts')).runCommand(args);
    },
  },
  validate: {
    summary: 'judge recorded traffic (a HAR file) or proxied traffic with the same oracles',
    main: async (args) => (await import('./validate.ts')).validateCommand(args),
  },
  merge: {
    summary: 'merge the blob reports of a sharded run and apply the gate',
    main: async (args) => (await import('./merge-shards.ts')).mergeCommand(args),
  },
  serve: {
    summary: 'run the reference server alone on a port, printing its URL and token (to try the suite)',
    main: async (args) => (await import('./serve.ts')).serveCommand(args),
  },
};

/**
 * --help of the command; its examples start with the command as it runs from `from`
 * (config/command.ts: `npx payflow-conformance` installed, `node bin/payflow-conformance.mjs` in
 * a clone).
 */
export function cliUsage(from: string = process.cwd()): string {
  const command = commandPrefix(from);
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length)) + 2;
  return `usage: payflow-conformance <command> [options]
       payflow-conformance <command> --help
       payflow-conformance [<command>] --version

payflow-conformance ${packageVersion()}: a conformance test suite and API validator for the payment-flow
interface. Reports go to reports/ of the directory you run it from.

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`)
  .join('\n')}

Settings come from flags (--base-url, --seed, ...: see <command> --help), else environment
variables (API_BASE_URL, CONFORMANCE_SEED, ...), else the .env file of the directory you run from.
The bearer token is read from API_TOKEN (environment or .env) only, never from a flag.
Example, against a deployment:
  API_TOKEN=... ${command} run --base-url https://sandbox.example.com \\
    --counterparty-ref ACME-0001
Without one: \`${command} serve\` starts the reference server and prints the settings
that point \`run\` at it.`;
}

async function main(args: readonly string[]): Promise<void> {
  // Before the chosen command's modules load (bin/compile-cache.ts).
  enableCompileCache();
  const [command, ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(cliUsage());
    return;
  }
  if (command !== undefined && printedVersion([command])) return;
  if (command === undefined) fail(`a command is needed: ${Object.keys(COMMANDS).join(', ')} (see --help)`);
  // An own property only: `constructor` or `toString` is an unknown command, not Object.prototype's.
  const chosen = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (chosen === undefined)
    fail(`unknown command '${command}'; commands: ${Object.keys(COMMANDS).join(', ')} (see --help)`);
  await chosen.main(rest);
}

runMain(() => main(process.argv.slice(2)));
