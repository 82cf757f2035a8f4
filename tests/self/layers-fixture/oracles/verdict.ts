import type { Rule } from '../requests/rules.ts';
import { send } from '../transport/wire.ts'; // flagged: only

export const verdict = (rule: Rule): string => send(rule);
