/**
 * The checks that write but never to the writable counterparty: PATCHes of invented or invalid
 * references (interface.md §4.1, §4.2, §7) and malformed bodies to the other write operations at
 * an invented bill (§4.3). A conforming deployment refuses each, so they run beside anything, as
 * reads do. Skipped, with the reason, in a read-only run.
 */
import { defineElsewhereWriteProbes } from '../../suite/define.ts';

defineElsewhereWriteProbes();
