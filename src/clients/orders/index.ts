export {
  type CallbackHoldType,
  callbackHoldTypes,
} from "./callback-hold-types.js";
export {
  type CallbackMessageType,
  callbackMessageTypes,
} from "./callback-message-types.js";
export { iterateList } from "./iterate-list.js";
export { OrderClient } from "./order-client.js";
export type { OrderClientOptions } from "./order-client-options.js";
export type { OrderEnvironment } from "./order-environment.js";
export { orderRoutes } from "./order-routes.js";
export type {
  BatchItemResult,
  BatchResult,
  Callback,
  DeleteCallbackResult,
  DeleteSecretPhraseResult,
  ListPage,
  ListParams,
  NewCallback,
  ServiceRecord,
} from "./order-types.js";
export type { RotateTokenRequest, TokenRotationResult } from "./rotate-token.js";
export { TokenRotationError } from "./token-rotation-error.js";
