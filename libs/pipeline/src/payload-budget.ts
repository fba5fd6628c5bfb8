import { Slots } from './translate/slots';

/**
 * Default of worker.textBytesAtOnce: a JSON message translated holds ~5x its text as objects
 * (a 14.7 MiB message of 25,000 documents: ~100 MB live), so four lanes of them at once could take a
 * worker far past its heap; a payload larger than this is translated alone.
 */
export const TEXT_BYTES_AT_ONCE = 16 * 1024 * 1024;

/**
 * What one JSON value takes of the budget: ~110 bytes of heap a value, at the budget's ~5x
 * (the 25,000-document message holds 900,000 values in 15 MB: its bytes and values agree).
 */
export const BUDGET_BYTES_PER_VALUE = 22;

/**
 * What a payload read whole takes of the budget: its bytes, or its JSON values when they weigh
 * more (`{},` is 3 bytes and ~60 of heap: a body of small values holds more than its bytes tell).
 */
export const textBudgetOf = (size: { textBytes: number; fileBytes: number | null; jsonValues: number | null }) =>
  Math.max(size.fileBytes ?? size.textBytes, (size.jsonValues ?? 0) * BUDGET_BYTES_PER_VALUE);

/**
 * At most how many values a JSON text holds, without parsing it: a container is itself and at most
 * one member no comma precedes, every other value follows a comma (brackets and commas inside
 * strings are counted too, which only raises the bound). One pass, ~1 ns a character.
 */
export function valuesAtMost(text: string): number {
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) {
      values += 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      values += 2;
    }
  }
  return values;
}

/** What delivering an operation takes of the budget while its payload is parsed and sent: as a message read whole. */
export const deliveryBudgetOf = (payloadText: string): number =>
  textBudgetOf({ textBytes: payloadText.length, fileBytes: null, jsonValues: valuesAtMost(payloadText) });

/**
 * The one budget of payload text a worker holds parsed at once (worker.textBytesAtOnce): messages
 * translated from a payload read whole and operations being delivered both take from it, so their
 * objects together stay within what the worker's heap was sized for (heap-advice.ts). Operations
 * of 150,000 values (~10 MB parsed each) delivered 16 at once took a 192 MiB worker out of heap.
 */
export class PayloadBudget extends Slots {}
