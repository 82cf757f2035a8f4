/** The reference in the path: interface.md §4.1, §7 (valid, invalid, raw and encoded slash). */
import { defineProbes } from '../../suite/define.ts';

defineProbes('references');
