import { BUDGET_BYTES_PER_VALUE } from '@dockbridge/audit';
import { Slots } from './translate/slots';

/**
 * Default of worker.textBytesAtOnce: a JSON message translated holds ~5x its text as objects
 * (a 14.7 MiB message of 25,000 documents: ~100 MB live), so four lanes of them at once could take a
 * worker far past its heap; a payload larger than this is translated alone.
 */
export const TEXT_BYTES_AT_ONCE = 16 * 1024 * 1024;

/**
 * What a payload read whole takes of the budget: its bytes, or its JSON values when they weigh
 * more (`{},` is 3 bytes and ~60 of heap: a body of small values holds more than its bytes tell).
 */
export const textBudgetOf = (size: { textBytes: number; fileBytes: number | null; jsonValues: number | null }) =>
  Math.max(size.fileBytes ?? size.textBytes, (size.jsonValues ?? 0) * BUDGET_BYTES_PER_VALUE);

/**
 * The one budget of payload text a worker holds parsed at once (worker.textBytesAtOnce): messages
 * translated from a payload read whole and operations being delivered (by the weight stored with
 * them, parsedWeightOf) both take from it, so their objects together stay within what the worker's
 * heap was sized for (heap-advice.ts). Operations of 150,000 values (~10 MB parsed each) delivered
 * 16 at once took a 192 MiB worker out of heap.
 */
export class PayloadBudget extends Slots {}
