import { spec } from '../spec/index.ts';

export const store = new Map([[spec, 1]]);
