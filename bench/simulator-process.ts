/**
 * Child process of the bench: starts the reasoner simulator twice (scenario
 * `echo-tool` for the agent runs, `long-stream` for stream reading), the
 * scripted chat server answering at once (the same two steps) and the
 * orders simulator, prints their addresses as one JSON line, and exits when
 * its stdin closes. Argument: the long stream's chunk count.
 */
import { startOrdersSimulator } from "../src/simulators/orders/orders-simulator.js";
import { startReasonerSimulator } from "../src/simulators/reasoner/start-reasoner-simulator.js";
import { startScriptedChatServer } from "./scripted-chat-server.js";
import { exitWhenStdinCloses } from "./spawn-ts-process.js";
import type { SimulatorAddresses } from "./start-simulator-process.js";

const longStreamChunks = Number(process.argv[2] ?? "10000");
const echo = await startReasonerSimulator({ scenario: "echo-tool", recordRequests: false });
const longStream = await startReasonerSimulator({
  scenario: "long-stream",
  longStreamChunks,
  recordRequests: false,
  // Back-to-back writes: the figure is the client's reading, not the simulator's pacing.
  streamPacing: "burst",
});
const scripted = await startScriptedChatServer();
const orders = await startOrdersSimulator();

const addresses: SimulatorAddresses = {
  echoUrl: echo.url,
  longStreamUrl: longStream.url,
  reasonerApiKey: echo.apiKey,
  longStreamApiKey: longStream.apiKey,
  scriptedUrl: scripted.url,
  scriptedApiKey: scripted.apiKey,
  ordersUrl: orders.url,
  ordersToken: orders.token,
};
process.stdout.write(`${JSON.stringify(addresses)}\n`);
exitWhenStdinCloses(async () => {
  await Promise.all([echo.close(), longStream.close(), scripted.close(), orders.close()]);
});
