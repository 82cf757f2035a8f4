/** The reference in the path: interface.md §4.1, §7 (valid, invalid, raw and encoded slash). */
import { defineChecks } from './define.ts';

defineChecks('references');
