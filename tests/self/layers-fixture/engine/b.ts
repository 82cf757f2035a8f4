import type { A } from './a.ts';

export type B = { a?: A };
