import { store } from '../servers/store.ts'; // flagged: never
import { spec } from '../spec/index.ts';

export const values = [...store.keys(), spec];
