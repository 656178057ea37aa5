import type { IncomingHttpHeaders } from "node:http";

/** The credential of an `Authorization: Bearer <token>` header, or undefined. */
export function readBearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
