/** GET /api/v1/counterparties/{ref} of the known counterparty: interface.md §2.1–2.3, §4.1, §9. */
import { defineProbes } from '../../suite/define.ts';

defineProbes('counterparty-get');
