// flagged: circle
import type { B } from './b.ts';

export type A = { b?: B };
export const judge = (a: A): boolean => a.b === undefined;
