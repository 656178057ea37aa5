import type { ApprovalRecord } from "../approval-gate.js";
import type { ApprovalAction } from "../approver.js";

/** One call's place in its step's question. */
export interface StepQuestionSeat {
  /**
   * Waits until every other call of the step has either asked or gone on
   * without asking, then resolves with this action's decision; `undefined`
   * when the step's question has already gone out (ask on your own).
   */
  ask(action: ApprovalAction, allowPending: boolean): Promise<ApprovalRecord> | undefined;
  /** This call will not ask (it runs, was refused, or reads an earlier answer). */
  leave(): void;
}

/** Asks about the actions gathered, in the order of the step's calls; one record per action. */
export type AskTogether = (
  actions: readonly ApprovalAction[],
  allowPending: boolean,
) => Promise<readonly ApprovalRecord[]>;

interface Arrival {
  action: ApprovalAction;
  allowPending: boolean;
  resolve(record: ApprovalRecord): void;
  reject(error: unknown): void;
}

/**
 * Gathers the approval questions of one step's calls (parallel calls the
 * model asked for in one answer) into one: the question goes out once every
 * call has either asked or gone on without asking, so no call waits for
 * another's tool to run. The run suspends only when every action in it can
 * (a call whose arguments hold a secret makes the whole question waited for).
 */
export class StepQuestion {
  readonly #arrivals: Array<Arrival | "left" | undefined>;
  readonly #askTogether: AskTogether;
  #sent = false;

  constructor(calls: number, askTogether: AskTogether) {
    this.#arrivals = new Array(calls).fill(undefined);
    this.#askTogether = askTogether;
  }

  /** The seat of the call at `index` in the step. */
  seat(index: number): StepQuestionSeat {
    return {
      ask: (action, allowPending) => {
        if (this.#sent || this.#arrivals[index] !== undefined) return undefined;
        const asked = new Promise<ApprovalRecord>((resolve, reject) => {
          this.#arrivals[index] = { action, allowPending, resolve, reject };
        });
        this.#sendWhenAllHere();
        return asked;
      },
      leave: () => {
        if (this.#arrivals[index] !== undefined) return;
        this.#arrivals[index] = "left";
        this.#sendWhenAllHere();
      },
    };
  }

  #sendWhenAllHere(): void {
    if (this.#sent || this.#arrivals.includes(undefined)) return;
    this.#sent = true;
    const asking = this.#arrivals.filter(
      (arrival): arrival is Arrival => typeof arrival === "object",
    );
    if (asking.length === 0) return;
    const allowPending = asking.every((arrival) => arrival.allowPending);
    this.#askTogether(
      asking.map((arrival) => arrival.action),
      allowPending,
    ).then(
      (records) => {
        asking.forEach((arrival, index) => {
          const record = records[index];
          if (record === undefined) {
            arrival.reject(new Error("the step's question gave no record for this call"));
          } else arrival.resolve(record);
        });
      },
      (error: unknown) => {
        for (const arrival of asking) arrival.reject(error);
      },
    );
  }
}
