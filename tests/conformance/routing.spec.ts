/** The listed collection operations are routed: interface.md §4.3. */
import { defineChecks } from './define.ts';

defineChecks('routing');
