import { probe } from '../../probes/probe.ts'; // flagged: only

probe();
