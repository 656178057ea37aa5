export { maximumPageSize } from "./build-list-query.js";
export {
  type CallbackHoldType,
  callbackHoldTypes,
  isCallbackHoldType,
} from "./callback-hold-types.js";
export {
  type CallbackMessageType,
  type CallbackMessageTypeFilter,
  callbackMessageTypes,
  isCallbackMessageType,
} from "./callback-message-types.js";
export { iterateList, type ListFunction } from "./iterate-list.js";
export type { OrderLocation } from "./order-base-url.js";
export { defaultOrderBatchSize, OrderClient } from "./order-client.js";
export type { OrderClientOptions, OrderClientSettings } from "./order-client-options.js";
export {
  inferOrderEnvironment,
  type OrderEnvironment,
  orderEnvironments,
} from "./order-environment.js";
export {
  type OrderRoute,
  type OrderRouteName,
  type OrderRouteOverrides,
  type OrderRoutes,
  orderRoutes,
  resolveOrderRoutes,
} from "./order-routes.js";
export type {
  BatchItemResult,
  BatchResult,
  Callback,
  DeleteCallbackResult,
  DeleteSecretPhraseResult,
  ListPage,
  ListParams,
  ListType,
  NewCallback,
  ServiceRecord,
} from "./order-types.js";
export type { RotateTokenRequest, TokenRotationResult } from "./rotate-token.js";
export { minimumSecretPhraseLength } from "./secret-phrase.js";
export { TokenRotationError, type TokenRotationStep } from "./token-rotation-error.js";
