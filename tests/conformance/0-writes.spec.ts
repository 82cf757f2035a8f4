/**
 * Every check that writes (PATCH of the writable counterparty: interface.md §4.2, §7, §8 and
 * RFC 5789 §2; authentication of the write operations: §5), in order in one worker. Skipped, with
 * the reason, in a read-only run. Its name sorts first: Playwright queues the test files of a
 * project in name order, and the lanes, the long pole of a write run, must start at once
 * (config/layout.ts WRITE_LANES).
 */
import { defineWriteProbes } from '../../suite/define.ts';

await defineWriteProbes();
