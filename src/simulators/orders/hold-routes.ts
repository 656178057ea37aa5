import { describeJsonValue } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { type HoldMessageType, holdMessageTypes, isHoldMessageType } from "./message-types.js";
import type { OrdersService } from "./orders-state.js";

/** `GET`, `POST` and `DELETE /callback_holds`; each answers `{holds}`, the holds active after it. */
export function holdRoutes(service: OrdersService): Route[] {
  const answer = () => ({ body: { holds: [...service.state.holds] } });
  return [
    { method: "GET", pattern: "/callback_holds", handle: answer },
    {
      method: "POST",
      pattern: "/callback_holds",
      handle: ({ body }) => {
        for (const type of readHoldTypes(body)) {
          if (!service.state.holds.includes(type)) service.state.holds.push(type);
        }
        return answer();
      },
    },
    {
      method: "DELETE",
      pattern: "/callback_holds",
      handle: ({ body }) => {
        const released = new Set(readHoldTypes(body));
        service.state.holds = service.state.holds.filter((type) => !released.has(type));
        return answer();
      },
    },
  ];
}

function readHoldTypes(body: unknown): HoldMessageType[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be a non-empty JSON array of hold message types (${holdMessageTypes.join(", ")}); got ${describeJsonValue(body)}.`,
    );
  }
  const invalid = body.filter((value) => !isHoldMessageType(value));
  if (invalid.length > 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_hold_type",
      `Not hold message types: ${invalid.map((value) => JSON.stringify(value)).join(", ")}. Holds use ${holdMessageTypes.join(", ")} (a different list from callback message types). Nothing was changed.`,
    );
  }
  return body as HoldMessageType[];
}
