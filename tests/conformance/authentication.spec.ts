/** Bearer authentication on all fourteen listed operations: interface.md §5, RFC 6750 §3. */
import { defineProbes } from '../../suite/define.ts';

defineProbes('authentication');
