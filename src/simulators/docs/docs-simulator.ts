import { randomBytes } from "node:crypto";
import { readBearerToken } from "../http/bearer-token.js";
import type { FaultRule } from "../http/fault-injector.js";
import type { RecordedRequest } from "../http/request-log.js";
import { SeededRandom, uuidSource } from "../http/seeded-random.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { startSimulatorServer } from "../http/simulator-server.js";
import { createSeededDocsState } from "./create-seeded-docs-state.js";
import { type DocsService, docsRoutes } from "./docs-routes.js";
import type { DocsFile, DocsPush, DocsState, Documentation } from "./docs-state.js";

/** Options of {@link startDocsSimulator}. */
export interface DocsSimulatorOptions {
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /** The bearer token the service accepts. @default a random `docs_...` token */
  token?: string;
  /**
   * Seed of the seeded projects and of the ids of projects created later;
   * equal seeds give equal ids. Without it the seeded projects are those of
   * 20250520 and every start hands out fresh ids.
   */
  seed?: number;
  /** Clock for push and creation times. @default () => new Date() */
  now?: () => Date;
}

/** A running documentation-hosting CLI simulator (docs/contract.md §3). */
export interface DocsSimulator {
  /** Base URL, `http://127.0.0.1:PORT/cli/v1`. */
  url: string;
  host: string;
  port: number;
  /** The bearer token the simulator accepts. */
  token: string;
  /** documentationId of the seeded "Storefront API" project (with planted faults). */
  storefrontId: string;
  /** documentationId of the seeded "Partner Portal" project (no faults). */
  partnerPortalId: string;
  /** Every request received (live array); headers exclude `authorization`. */
  readonly requests: RecordedRequest[];
  /** The next matching request(s) get this answer instead. */
  failNext(rule: FaultRule): void;
  clearRequests(): void;
  /** The live state; tests may change it directly. Replaced by {@link reset}. */
  readonly state: DocsState;
  /** The projects (without their files). */
  documentations(): Omit<Documentation, "files">[];
  /** A copy of one file, or undefined. */
  file(documentationId: string, path: string): DocsFile | undefined;
  /** Copies of all files of a project. */
  files(documentationId: string): DocsFile[];
  /** Every accepted push, oldest first. */
  pushes(): DocsPush[];
  /** Restores the seeded data, empties the request log and drops planned failures. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts an in-memory documentation-hosting CLI service on 127.0.0.1
 * speaking docs/contract.md §3: bearer auth, JSON bodies, plain-text errors.
 *
 * @example
 * const docs = await startDocsSimulator();
 * const response = await fetch(`${docs.url}/documentations`, {
 *   headers: { authorization: `Bearer ${docs.token}` },
 * });
 * await docs.close();
 */
export async function startDocsSimulator(
  options: DocsSimulatorOptions = {},
): Promise<DocsSimulator> {
  const token = options.token ?? `docs_${randomBytes(18).toString("base64url")}`;
  const seed = options.seed ?? 20250520;
  const seeded = () => {
    const random = new SeededRandom(seed);
    const state = createSeededDocsState(random);
    return { newId: uuidSource(options.seed === undefined ? undefined : random), state };
  };
  const service: DocsService = { ...seeded(), now: options.now ?? (() => new Date()) };
  const [storefront, partnerPortal] = service.state.documentations;
  if (!storefront || !partnerPortal) throw new Error("docs simulator seed data is incomplete");

  const server = await startSimulatorServer({
    ...(options.port === undefined ? {} : { port: options.port }),
    basePath: "/cli/v1",
    errorFormat: "text",
    routes: docsRoutes(service),
    authenticate: ({ headers }) => {
      const presented = readBearerToken(headers);
      if (presented === undefined) {
        return new SimulatorHttpError(
          401,
          "unauthorized",
          "Missing bearer token: send Authorization: Bearer <token>.",
        );
      }
      if (presented !== token) {
        return new SimulatorHttpError(
          401,
          "unauthorized",
          "Invalid token: it is not a token of this environment (local and production tokens differ).",
        );
      }
      return undefined;
    },
  });

  const findProject = (documentationId: string) =>
    service.state.documentations.find((project) => project.documentationId === documentationId);

  return {
    url: `${server.origin}/cli/v1`,
    host: server.host,
    port: server.port,
    token,
    storefrontId: storefront.documentationId,
    partnerPortalId: partnerPortal.documentationId,
    requests: server.requests,
    failNext: server.failNext,
    clearRequests: server.clearRequests,
    get state() {
      return service.state;
    },
    documentations: () =>
      service.state.documentations.map(({ files: _files, ...project }) => ({ ...project })),
    file: (documentationId, path) => {
      const file = findProject(documentationId)?.files.get(path);
      return file ? { ...file } : undefined;
    },
    files: (documentationId) =>
      [...(findProject(documentationId)?.files.values() ?? [])].map((file) => ({ ...file })),
    pushes: () => structuredClone(service.state.pushes),
    reset: () => {
      Object.assign(service, seeded());
      server.clearRequests();
      server.clearFaults();
    },
    close: server.close,
  };
}
