import { probe } from '../probes/probe.ts';

export const load = (): Promise<unknown> => import('../bin/cli.ts'); // flagged: up
export const html = probe();
