/**
 * ag-ui-app: the callback-cleanup agent served over AG-UI, with a one-page
 * client. The page asks the agent to remove the callbacks of a retired host;
 * the deletion needs approval, so the run ends with an interrupt, the page
 * shows the question, and your click answers it. The model and the order
 * service are the local simulators.
 *
 *   node --import tsx examples/ag-ui-app.ts            # prints the page's address
 *   node --import tsx examples/ag-ui-app.ts --port 3000
 */
import { realpathSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Agent, FileRunStore, OrderClient, orderTools, ReasonerClient } from "switchyard-agents";
import { createAgUiHandler, toNodeHandler } from "switchyard-agents/ag-ui";
import {
  type OrdersSimulator,
  startOrdersSimulator,
  startReasonerSimulator,
} from "switchyard-agents/simulators";
import { agUiPage } from "./ag-ui-page.js";

const instructions = `You keep the order service's webhook callbacks tidy.
List the callbacks, pick exactly those whose URL host is the host the user names or a subdomain of it, and delete them with one delete_callbacks call.
A person is asked to approve every deletion. If the deletion is refused, say that nothing was deleted and why; do not retry.`;

/** Options of {@link startAgUiApp}. */
export interface AgUiAppOptions {
  /** @default a free port */
  port?: number | undefined;
  /** Where runs waiting for an answer are kept. @default `.switchyard` in the working directory */
  stateDirectory?: string | undefined;
}

/** The running example: its page's address, the order service it acts on, and how to stop it. */
export interface AgUiApp {
  url: string;
  orders: OrdersSimulator;
  close(): Promise<void>;
}

/** Starts the simulators, the agent behind an AG-UI handler, and the page, on 127.0.0.1. */
export async function startAgUiApp(options: AgUiAppOptions = {}): Promise<AgUiApp> {
  const reasoner = await startReasonerSimulator();
  const orders = await startOrdersSimulator().catch(async (error: unknown) => {
    await reasoner.close();
    throw error;
  });
  const model = new ReasonerClient({ url: reasoner.url, apiKey: reasoner.apiKey });
  const tools = orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })).filter(
    (tool) => tool.name === "list_callbacks" || tool.name === "delete_callbacks",
  );
  const handler = createAgUiHandler({
    agent: ({ approver, runStore }) =>
      new Agent({ model, tools, instructions, approver, runStore, maxSteps: 10 }),
    runStore: new FileRunStore({ directory: options.stateDirectory }),
    // A real application names the signed-in person from its own session
    // here, and resolves undefined for anyone who may not approve.
    authorize: () => "you (on this computer)",
  });
  const agUi = toNodeHandler(handler);
  const server = createServer((request, response) => {
    if (request.url === "/agent") {
      void agUi(request, response);
      return;
    }
    if (request.method === "GET" && request.url === "/") {
      response.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        // The page's own inline script and style, nothing else.
        "content-security-policy":
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
      });
      response.end(agUiPage);
      return;
    }
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found.\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  }).catch(async (error: unknown) => {
    await Promise.all([orders.close(), reasoner.close()]);
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    orders,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([orders.close(), reasoner.close()]);
    },
  };
}

const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  const portFlag = process.argv.indexOf("--port");
  const port = portFlag > 0 ? Number(process.argv[portFlag + 1]) : undefined;
  const app = await startAgUiApp({ port });
  process.stdout.write(`Open ${app.url} (Ctrl-C stops it)\n`);
  process.once("SIGINT", () => void app.close());
}
