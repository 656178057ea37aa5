import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { TransportOptions } from "../internal/http/transport-options.js";

/** How `aiSdkModel` calls its model: retries, timeout, and what every call carries. */
export interface AiSdkModelOptions
  extends Pick<
    TransportOptions,
    "maxRetries" | "initialRetryDelayMs" | "maxRetryDelayMs" | "headers" | "logger"
  > {
  /**
   * Per-attempt wait in ms: for a whole answer, until it has come; for a
   * stream, until it starts. A call's own `timeoutMs` overrides it.
   * @default none: as long as the provider waits
   */
  timeoutMs?: number | undefined;
  /**
   * The specification's `providerOptions`, sent with every call: the
   * vendor's own settings, keyed by provider, e.g.
   * `{ anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } }`.
   */
  providerOptions?: SharedV3ProviderOptions | undefined;
}
