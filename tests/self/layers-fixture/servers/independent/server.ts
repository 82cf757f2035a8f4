import { spec } from '../../spec/index.ts'; // flagged: only

export const server = spec;
