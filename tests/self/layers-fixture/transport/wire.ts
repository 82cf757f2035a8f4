import { spec } from '../spec/index.ts';

export { judge } from '../engine/a.ts'; // flagged: up
export const send = (text: string): string => `${text}${spec}`;
