/**
 * Thrown by a simulator route to answer with a non-2xx status. The server
 * turns it into the simulator's error body (JSON `{error: {code, message}}`
 * or plain text, depending on the service being simulated).
 */
export class SimulatorHttpError extends Error {
  override readonly name = "SimulatorHttpError";
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}
