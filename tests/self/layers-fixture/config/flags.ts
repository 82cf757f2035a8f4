import type { A } from '../engine/a.ts'; // flagged: across
import { send } from '../transport/wire.ts';

export const flags: A[] = [{}];
export const sent = send('x');
