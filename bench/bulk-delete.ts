import { OrderClient } from "../src/clients/orders/order-client.js";
import { type FigureResult, round } from "./figure.js";
import { measureInterleaved } from "./interleave.js";
import { median } from "./statistics.js";

/** Options of {@link measureBulkDelete}. */
export interface BulkDeleteOptions {
  /** The orders simulator's base URL and a token for it. */
  ordersUrl: string;
  token: string;
  /** Callbacks created, then deleted, per run. */
  callbacks: number;
  /** Ids per DELETE request. @default OrderClient's default (100) */
  batchSize?: number;
  warmup: number;
  runs: number;
}

/** Most callbacks one `POST /callbacks` may carry on the simulator. */
const createBatchSize = 100;
let seedRound = 0;

/**
 * Figure 5: deleting `callbacks` callbacks through `OrderClient.deleteCallbacks`
 * (against the orders simulator, seeded before each run through
 * `POST /callbacks`), against a hand-written `fetch` loop sending the same
 * batches: wall time, and the number of HTTP requests the client sent,
 * which must be ceil(callbacks / batch size).
 */
export async function measureBulkDelete(options: BulkDeleteOptions): Promise<FigureResult> {
  const base = options.ordersUrl.endsWith("/") ? options.ordersUrl : `${options.ordersUrl}/`;
  const headers = {
    authorization: `Bearer ${options.token}`,
    "content-type": "application/json",
    accept: "application/json",
  };
  let requests = 0;
  const client = new OrderClient({
    baseUrl: base,
    token: options.token,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
  const batchSize = client.batchSize;
  const expectedRequests = Math.ceil(options.callbacks / batchSize);
  const counts = { callbacks: options.callbacks, batchSize, expectedRequests, requests: 0 };

  const seed = async (): Promise<string[]> => {
    seedRound++;
    const ids: string[] = [];
    for (let start = 0; start < options.callbacks; start += createBatchSize) {
      const size = Math.min(createBatchSize, options.callbacks - start);
      const body = Array.from({ length: size }, (_, index) => ({
        url: `https://bench.example/hooks/${seedRound}/${start + index}`,
        message_type: "orderEvent",
      }));
      const response = await fetch(`${base}callbacks`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      if (!response.ok)
        throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
      const created = (await response.json()) as { id: string }[];
      ids.push(...created.map((callback) => callback.id));
    }
    return ids;
  };

  const [baseline, library] = await measureInterleaved(
    [
      {
        prepare: seed,
        run: async (ids: string[]) => {
          let deleted = 0;
          for (let start = 0; start < ids.length; start += batchSize) {
            const response = await fetch(`${base}callbacks`, {
              method: "DELETE",
              headers,
              body: JSON.stringify(ids.slice(start, start + batchSize)),
            });
            const answer = (await response.json()) as { deleted: { status: string }[] };
            deleted += answer.deleted.filter((entry) => entry.status === "success").length;
          }
          if (deleted !== ids.length) throw new Error(`the hand-written loop deleted ${deleted}`);
        },
      },
      {
        prepare: seed,
        run: async (ids: string[]) => {
          requests = 0;
          const results = await client.deleteCallbacks(ids);
          const deleted = results.filter((result) => result.status === "success").length;
          if (deleted !== ids.length) {
            throw new Error(`OrderClient deleted ${deleted} of ${ids.length} callbacks`);
          }
          counts.requests = requests;
        },
      },
    ],
    options,
  );
  const value = median(library!.wallMs);
  const baselineMs = median(baseline!.wallMs);
  return {
    figures: [
      {
        name: `bulk delete (${options.callbacks} callbacks, batch ${batchSize}): HTTP requests`,
        value: counts.requests,
        unit: "requests",
        target: `= ceil(${options.callbacks} / ${batchSize}) = ${expectedRequests}`,
        met: counts.requests === expectedRequests,
      },
      {
        name: `bulk delete (${options.callbacks} callbacks, batch ${batchSize}): wall time`,
        value: round(value, 2),
        unit: "ms",
        baseline: round(baselineMs, 2),
        ratio: round(value / baselineMs),
      },
    ],
    counts,
  };
}
