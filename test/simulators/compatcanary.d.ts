/** The part of compatcanary's (untyped) API the probe test uses. */
declare module "compatcanary" {
  /** One probe's outcome. */
  export interface ProbeResult {
    id: string;
    name: string;
    required: boolean;
    status: "pass" | "warn" | "fail";
    summary: string;
    error?: { message: string; httpStatus?: number; responseBody?: string };
  }

  /** A scan's report (`compatcanary.report.v1`). */
  export interface ScanReport {
    schemaVersion: string;
    compatible: boolean;
    score: number;
    results: ProbeResult[];
  }

  /** Runs the probes of `profile` against an OpenAI-compatible base URL. */
  export function scanEndpoint(options: {
    baseUrl: string;
    model: string;
    apiKey?: string;
    profile?: "modern" | "chat";
    timeoutMs?: number;
  }): Promise<ScanReport>;
}
