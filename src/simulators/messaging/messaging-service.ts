import type { MessageLifecycle } from "./message-lifecycle.js";
import type { MessagingState } from "./messaging-state.js";

/** What the messaging routes share. `state` and `newId` are replaced by `reset`. */
export interface MessagingService {
  state: MessagingState;
  /** A new message, interaction or link id: fresh on every start, or from the seed when one was given. */
  newId(): string;
  lifecycle: MessageLifecycle;
  features: readonly string[];
  /** `http://127.0.0.1:PORT`, known once the server listens; links point below it. */
  origin: string;
  /** The secret each form of the simulator's pages carries, so another site cannot post them. */
  formToken: string;
  now(): Date;
}
