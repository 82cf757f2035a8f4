/** The listed collection operations are routed: interface.md §4.3. */
import { defineProbes } from '../../suite/define.ts';

defineProbes('routing');
