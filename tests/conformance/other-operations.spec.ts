/** Bills, mandates and direct debit (interface.md §4.3, §8, §9): list queries and item references. */
import { defineProbes } from '../../suite/define.ts';

defineProbes('other-operations');
