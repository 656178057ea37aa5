import { ApiError } from "../../errors/api-error.js";
import { AbortedError } from "../../errors/transport-errors.js";
import type { Logger } from "../../internal/logger.js";

/** One per-item entry of a service answer, reduced to what matching needs. */
export interface BatchAnswerEntry {
  /** The item's key as the service gave it (customer_identifier, callback id), if it did. */
  key: string | undefined;
  succeeded: boolean;
  errorMessage: string | undefined;
  /** The service's entry as it came, extra fields included. */
  entry: Record<string, unknown>;
}

/** What happened to one input item. */
export interface ItemOutcome {
  key: string;
  succeeded: boolean;
  errorMessage?: string;
  /** The service's own entry for this item, when it answered for it. */
  entry?: Record<string, unknown>;
}

/** An item ready to send, or the reason it will not be sent. */
export type PreparedItem<Item> = { key: string; item: Item } | { key: string; problem: string };

/** How `writeInBatches` prepares, sends and reads one kind of bulk write. */
export interface WriteInBatchesOptions<Item> {
  items: readonly unknown[];
  prepare(item: unknown, index: number): PreparedItem<Item>;
  batchSize: number;
  /** Send each key once; every occurrence of it gets that one outcome. */
  dedupe: boolean;
  /** Makes keys comparable, e.g. lower-cases UUIDs. @default identity */
  normalizeKey?: (key: string) => string;
  /** Sends one batch; answers its entries, or a problem when the answer holds none. */
  send(batch: Item[]): Promise<readonly BatchAnswerEntry[] | string>;
  /** Singular noun for messages, e.g. `id` or `item`. */
  noun: string;
  signal?: AbortSignal | undefined;
  logger: Logger;
}

interface Pending<Item> {
  index: number;
  key: string;
  item: Item;
}

/**
 * Runs a bulk write as sequential batches so that no single failure hides the
 * others: items refused locally are reported and not sent, a batch whose
 * request fails marks only its own items failed (the next batches still go),
 * answers are matched back to items by key (or by position when the service
 * gives no keys), and the outcomes come back one per input item, in input
 * order. Once the caller aborts, the remaining batches are reported as not sent.
 */
export async function writeInBatches<Item>(
  options: WriteInBatchesOptions<Item>,
): Promise<ItemOutcome[]> {
  const normalize = options.normalizeKey ?? ((key: string) => key);
  const outcomes: ItemOutcome[] = new Array(options.items.length);
  const firstIndexByKey = new Map<string, number>();
  const aliases: [index: number, of: number, key: string][] = [];
  const pending: Pending<Item>[] = [];

  options.items.forEach((raw, index) => {
    const prepared = options.prepare(raw, index);
    if ("problem" in prepared) {
      outcomes[index] = {
        key: prepared.key,
        succeeded: false,
        errorMessage: `not sent: ${prepared.problem}`,
      };
      return;
    }
    if (options.dedupe) {
      const first = firstIndexByKey.get(normalize(prepared.key));
      if (first !== undefined) {
        aliases.push([index, first, prepared.key]);
        return;
      }
      firstIndexByKey.set(normalize(prepared.key), index);
    }
    pending.push({ index, key: prepared.key, item: prepared.item });
  });

  const batches: Pending<Item>[][] = [];
  for (let start = 0; start < pending.length; start += options.batchSize) {
    batches.push(pending.slice(start, start + options.batchSize));
  }

  let stopped: string | undefined;
  for (const [position, batch] of batches.entries()) {
    const label = `batch ${position + 1} of ${batches.length}`;
    if (stopped === undefined && options.signal?.aborted) {
      stopped = "not sent: the operation was aborted by the caller";
    }
    if (stopped !== undefined) {
      for (const sent of batch) {
        outcomes[sent.index] = { key: sent.key, succeeded: false, errorMessage: stopped };
      }
      continue;
    }
    try {
      const answer = await options.send(batch.map((sent) => sent.item));
      if (typeof answer === "string") {
        for (const sent of batch) {
          outcomes[sent.index] = {
            key: sent.key,
            succeeded: false,
            errorMessage: `${label}: ${answer}; the service may have acted on this ${options.noun}`,
          };
        }
        continue;
      }
      matchAnswers(batch, answer, normalize, options.noun, outcomes);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AbortedError) {
        stopped = "not sent: the operation was aborted by the caller";
      }
      options.logger.warn(
        { batch: position + 1, batches: batches.length, items: batch.length, error: message },
        "bulk write batch failed",
      );
      for (const sent of batch) {
        outcomes[sent.index] = {
          key: sent.key,
          succeeded: false,
          errorMessage: `${label} failed: ${message}${mayHaveActed(error) ? `; the service may have acted on this ${options.noun}, so check before sending it again` : ""}`,
        };
      }
    }
  }

  for (const [index, of, key] of aliases) {
    outcomes[index] = { ...outcomes[of]!, key };
  }
  return outcomes;
}

function matchAnswers<Item>(
  batch: readonly Pending<Item>[],
  answers: readonly BatchAnswerEntry[],
  normalize: (key: string) => string,
  noun: string,
  outcomes: ItemOutcome[],
): void {
  const byKey = new Map<string, BatchAnswerEntry[]>();
  const unkeyed: BatchAnswerEntry[] = [];
  for (const answer of answers) {
    if (answer.key === undefined) {
      unkeyed.push(answer);
      continue;
    }
    const key = normalize(answer.key);
    const queue = byKey.get(key);
    if (queue) queue.push(answer);
    else byKey.set(key, [answer]);
  }
  // Only a service that names no item and answers exactly once per item can be matched by position.
  const byPosition = byKey.size === 0 && unkeyed.length === batch.length;
  batch.forEach((sent, position) => {
    const answer = byPosition ? unkeyed[position] : byKey.get(normalize(sent.key))?.shift();
    if (!answer) {
      outcomes[sent.index] = {
        key: sent.key,
        succeeded: false,
        errorMessage: `no result returned for this ${noun}`,
      };
      return;
    }
    outcomes[sent.index] = {
      key: sent.key,
      succeeded: answer.succeeded,
      entry: answer.entry,
      ...(answer.succeeded
        ? {}
        : {
            errorMessage: answer.errorMessage ?? "the service reported a failure without a message",
          }),
    };
  });
}

/** Whether a failed request may still have had effects (anything but a 4xx answer). */
function mayHaveActed(error: unknown): boolean {
  if (error instanceof AbortedError) return true;
  return !(error instanceof ApiError && error.status < 500);
}
