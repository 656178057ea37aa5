import { Writable } from "node:stream";
import nock from "nock";
import { pino } from "pino";
import { afterEach, beforeAll } from "vitest";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import type { OrderClientSettings } from "../../../src/clients/orders/order-client-options.js";

/** A JWT-shaped token (header {"alg":"HS256"}, payload {"sub":"test"}). */
export const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLW9sZA";
/** The token a rotation creates. */
export const newToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJuZXcifQ.c2lnbmF0dXJlLW5ldw";
export const origin = "https://sandbox.orders.example.com";
export const prefix = "/acme/api/v1";
export const baseUrl = `${origin}${prefix}/`;

export const uuids = [
  "0b1d8f3e-3c4a-4f57-9a31-6d1f2b7c9e01",
  "1c2e9a4f-4d5b-4a68-8b42-7e2a3c8d0f12",
  "2d3fab50-5e6c-4b79-9c53-8f3b4d9e1a23",
  "3e4abc61-6f7d-4c8a-8d64-9a4c5eaf2b34",
  "4f5bcd72-7a8e-4d9b-9e75-ab5d6fb03c45",
];

/** An order client against the nock origin, with tiny retry delays. */
export function makeClient(settings: Partial<OrderClientSettings> = {}): OrderClient {
  return new OrderClient({ baseUrl, token, initialRetryDelayMs: 1, ...settings });
}

/** Installs the nock guards every order test file uses. */
export function useNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
  });
  afterEach(() => {
    nock.cleanAll();
  });
}

/** A pino logger at `trace` writing into memory, and what it wrote. */
export function captureLogs() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = pino({ level: "trace" }, stream);
  return { logger, text: () => chunks.join("") };
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
