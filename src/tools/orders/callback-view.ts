import type { Callback } from "../../clients/orders/order-types.js";

/** A callback as the model sees it: never its verification `token`. */
export interface CallbackView {
  id: string;
  url: string;
  message_type: string;
  api_version?: string;
  created_at?: string;
}

/** Picks the fields a model needs from a callback; the token and unknown fields are left out. */
export function toCallbackView(callback: Callback): CallbackView {
  return {
    id: callback.id,
    url: callback.url,
    message_type: callback.message_type,
    ...(typeof callback.api_version === "string" ? { api_version: callback.api_version } : {}),
    ...(typeof callback.created_at === "string" ? { created_at: callback.created_at } : {}),
  };
}
