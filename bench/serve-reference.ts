/**
 * The embedded reference server alone in its own process, for the load generator of
 * bench/bench.ts: prints its base URL, serves until stdin closes or it is told to stop.
 */
import { ReferenceServer } from '../servers/reference.ts';

const server = new ReferenceServer();
const url = await server.start(0);
process.stdout.write(`${url}\n`);
const stop = (): void => {
  void server.stop().then(() => process.exit(0));
};
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
