import { AsyncResource } from "node:async_hooks";
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStream,
} from "../agent/model.js";
import { canonicalJson, textDigest } from "../internal/canonical-json.js";
import type { Dbos } from "./load-dbos.js";

/**
 * The agent's model, each of whose calls within a durable run is a DBOS
 * workflow of one step, with an id made of the run, the request's digest and
 * how many times the run asked that same request before: a run recovered
 * after a crash that asks the same question again gets the recorded answer,
 * and the model is not paid twice. Outside a durable run it is the model.
 */
export class RecordedModel implements Model {
  readonly #dbos: Dbos;
  readonly #model: Model;
  /** Records one model call as a workflow of its own, started outside the run's step. */
  readonly #record: (workflowId: string, request: ModelRequest) => Promise<ModelResponse>;
  /** Per run being advanced in this process: how many times each request was asked. */
  readonly #asked = new Map<string, Map<string, number>>();
  /** Set once the process shuts down: where a durable run's model call stops instead. */
  #park: ((runId: string) => Promise<never>) | undefined;

  constructor(dbos: Dbos, model: Model, workflowName: string) {
    this.#dbos = dbos;
    this.#model = model;
    const call = dbos.registerWorkflow(
      (request: ModelRequest) =>
        dbos.runStep(() => model.complete(request), { name: "model.complete" }),
      { name: workflowName },
    );
    // DBOS refuses to start a workflow inside a step, since a step run again
    // would start it again; one started under a fixed id is started once, so
    // it is started in the context this model was built in, outside the run.
    this.#record = AsyncResource.bind(async (workflowId: string, request: ModelRequest) => {
      const handle = await dbos.startWorkflow(call, { workflowID: workflowId })(request);
      return handle.getResult();
    });
  }

  /**
   * Starts counting the requests of one attempt at advancing `runId`; the
   * returned function stops it. Each attempt counts from zero, so that an
   * attempt repeated after a crash names its model calls as the first did.
   */
  beginAttempt(runId: string): () => void {
    const asked = new Map<string, number>();
    this.#asked.set(runId, asked);
    return () => {
      if (this.#asked.get(runId) === asked) this.#asked.delete(runId);
    };
  }

  /**
   * From now on, a durable run's model call asks nothing and records
   * nothing: it returns `park(runId)` (the process is shutting down; DBOS
   * recovers the run at the next launch, and the call is asked then).
   */
  stopAsking(park: (runId: string) => Promise<never>): void {
    this.#park = park;
  }

  async complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    const runId = this.#dbos.workflowID;
    const asked = runId === undefined ? undefined : this.#asked.get(runId);
    if (runId === undefined || asked === undefined) return this.#model.complete(request, options);
    if (this.#park) return this.#park(runId);
    const digest = textDigest(canonicalJson(request)).slice(
      "sha256:".length,
      "sha256:".length + 32,
    );
    const ordinal = asked.get(digest) ?? 0;
    asked.set(digest, ordinal + 1);
    return this.#record(`${runId}.model.${digest}.${ordinal}`, request);
  }

  /** Streams straight from the model: a durable run asks with `complete()`, never streams. */
  stream(request: ModelRequest, options?: ModelCallOptions): ModelStream {
    return this.#model.stream(request, options);
  }
}
