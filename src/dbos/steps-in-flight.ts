/** A promise that never settles: where a workflow of a process shutting down stops. */
function parkedForever<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/**
 * The DBOS steps a durable agent runs in this process, so that its shutdown
 * closes the database pools only once none of them can touch them again.
 * Once closing, a step that begins, or a model call, parks: it never
 * settles and reads or writes nothing, so DBOS records nothing for it (an
 * error a step threw would be recorded, and would end the workflow), and
 * the workflow stays pending, recovered at the next launch from the
 * run's saved state.
 */
export class StepsInFlight {
  #closing = false;
  /** The steps running, each with the workflow it belongs to. */
  readonly #running = new Map<Promise<void>, string | undefined>();
  /** Per workflow waited for at shutdown: resolves once it parked. */
  readonly #parked = new Map<string, Array<() => void>>();

  /** Whether shutdown began: a step ending now leads its workflow to the next step, not a wait. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Runs one step of `workflowId` (none outside a workflow); once closing, parks instead. */
  run<T>(workflowId: string | undefined, step: () => Promise<T>): Promise<T> {
    if (this.#closing) return this.park(workflowId);
    const running = step();
    const settled = running.then(
      () => {},
      () => {},
    );
    this.#running.set(settled, workflowId);
    void settled.then(() => this.#running.delete(settled));
    return running;
  }

  /** Where the work of `workflowId` stops once closing: a promise that never settles. */
  park<T>(workflowId: string | undefined): Promise<T> {
    if (workflowId !== undefined)
      for (const resolve of this.#parked.get(workflowId) ?? []) resolve();
    return parkedForever();
  }

  /**
   * Marks closing, then resolves once each step running has ended and its
   * workflow has either parked (its next step or model call) or ended
   * (`ended` resolves once DBOS recorded how).
   */
  async close(ended: (workflowId: string) => Promise<unknown>): Promise<void> {
    this.#closing = true;
    await Promise.all(
      [...this.#running].map(([settled, workflowId]) => {
        if (workflowId === undefined) return settled;
        const parked = new Promise<void>((resolve) => {
          this.#parked.set(workflowId, [...(this.#parked.get(workflowId) ?? []), resolve]);
        });
        const recorded = settled
          .then(() => ended(workflowId))
          .then(
            () => {},
            () => {},
          );
        return Promise.race([parked, recorded]);
      }),
    );
    this.#parked.clear();
  }
}
