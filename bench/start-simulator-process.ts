import { spawnTsProcess } from "./spawn-ts-process.js";

/** Where the simulators of the bench's child process listen, and their keys. */
export interface SimulatorAddresses {
  /** Reasoner playing `echo-tool`: one call of the offered tool, then "done". */
  echoUrl: string;
  reasonerApiKey: string;
  /** Reasoner playing `long-stream`: text pieces and argument fragments. */
  longStreamUrl: string;
  longStreamApiKey: string;
  /** The scripted chat server answering at once (a tool call, then "done"). */
  scriptedUrl: string;
  scriptedApiKey: string;
  /** Orders simulator base URL, without trailing slash. */
  ordersUrl: string;
  ordersToken: string;
}

/** The simulators running in their own process, and how to stop them. */
export interface SimulatorProcess extends SimulatorAddresses {
  stop(): Promise<void>;
}

/**
 * Starts the simulators in a separate process on loopback, so the bench
 * process measures only the client side of each request.
 */
export async function startSimulatorProcess(options: {
  longStreamChunks: number;
}): Promise<SimulatorProcess> {
  const started = await spawnTsProcess<SimulatorAddresses>(
    new URL("./simulator-process.ts", import.meta.url),
    [String(options.longStreamChunks)],
  );
  return { ...started.message, stop: started.stop };
}
