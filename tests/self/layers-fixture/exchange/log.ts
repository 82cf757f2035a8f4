import type { Probe } from '../probes/probe.ts'; // flagged: up
import { spec } from '../spec/index.ts';

export const log: Probe[] = [spec];
