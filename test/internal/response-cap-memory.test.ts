import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

// A 50 MB answer against the 32 MiB cap: the read stops at the cap, the body
// is cancelled (the server sees its connection closed before it wrote it
// all), and the client's peak memory grows by less than four times the cap
// (the cap's bytes held once, with the transport's buffers and the garbage
// not yet collected: 71-108 MB measured on Node 22, 24 and 26; an answer
// read whole grew 200 MB and more). Measured in a child process of its
// own, whose peak RSS is nobody else's.

const answerBytes = 50 * 1024 * 1024;
const capBytes = 32 * 1024 * 1024;
const mostGrowthMb = (4 * capBytes) / 1e6;
const servers: ReturnType<typeof createServer>[] = [];

/** Writes a 50 MB JSON answer, chunked; `outcome` tells whether the client took it all. */
async function serveHugeAnswer() {
  let resolveOutcome: (outcome: { written: number; cutShort: boolean }) => void = () => {};
  const outcome = new Promise<{ written: number; cutShort: boolean }>((resolve) => {
    resolveOutcome = resolve;
  });
  const piece = Buffer.alloc(64 * 1024, "a");
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "application/json" });
    let written = 0;
    response.write('{"pad":"');
    const pump = () => {
      while (written < answerBytes && !response.destroyed) {
        written += piece.length;
        if (!response.write(piece)) {
          response.once("drain", pump);
          return;
        }
      }
      if (!response.destroyed) response.end('"}');
    };
    response.on("close", () =>
      resolveOutcome({ written, cutShort: !response.writableFinished || written < answerBytes }),
    );
    pump();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, outcome };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Reader = "node" | "fetch" | "chat stream";

/** Reads the answer in a child process; its error's name and its peak RSS growth in MB. */
async function readInChild(url: string, reader: Reader) {
  const script = `
const { HttpClient } = await import("./src/internal/http/http-client.ts");
const { ReasonerClient } = await import("./src/clients/reasoner/reasoner-client.ts");
const reader = process.env.READER;
const client = new HttpClient({
  baseUrl: process.env.ANSWER_URL,
  maxRetries: 0,
  ...(reader === "fetch" ? { fetch: globalThis.fetch } : {}),
});
const chat = new ReasonerClient({ url: process.env.ANSWER_URL, apiKey: "sk-cap-test-51c0e2", maxRetries: 0 });
// Node loads fetch's implementation (undici) on its first call, some 10 MB
// once per process: loaded before the measure, so it counts the answer only.
if (reader === "fetch") await (await fetch("data:,warm")).text();
const before = process.memoryUsage().rss;
let name = "none";
try {
  if (reader === "chat stream") {
    // A streamed request answered with one JSON body, as some servers do.
    await chat.stream({ messages: [{ role: "user", content: "hi" }] }).finalCompletion();
  } else {
    await client.requestJson({ method: "GET", path: "/answer" });
  }
} catch (error) {
  name = error.name;
}
const growth = process.resourceUsage().maxRSS * 1024 - before;
console.log(JSON.stringify({ name, growthMb: Math.round(growth / 1e6) }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: process.cwd(), env: { ...process.env, ANSWER_URL: url, READER: reader } },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { name: string; growthMb: number };
}

describe("a 50 MB answer against the 32 MiB cap", () => {
  for (const reader of ["node", "fetch", "chat stream"] as const) {
    it(`read by ${reader === "chat stream" ? "a chat stream" : `the ${reader} transport`}: refused at the cap, body cancelled, memory under four times the cap`, async () => {
      const service = await serveHugeAnswer();
      const read = await readInChild(service.url, reader);
      expect(read.name).toBe("ResponseTooLargeError");
      const outcome = await service.outcome;
      expect(outcome.cutShort).toBe(true);
      expect(outcome.written).toBeLessThan(answerBytes);
      expect(read.growthMb).toBeLessThan(mostGrowthMb);
    }, 60_000);
  }
});
