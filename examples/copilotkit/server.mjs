/**
 * copilotkit: the agent of examples/ag-ui-app.ts behind CopilotKit's own
 * runtime, with the shortest page that uses CopilotKit's front-end core.
 *
 *   npm ci --prefix examples/copilotkit --omit=peer
 *   node --import tsx examples/copilotkit/server.mjs     # from the repository's root
 *
 * The Switchyard AG-UI handler serves at /agent of the plain example's server;
 * CopilotKit's runtime (`/api/copilotkit` here) has it as the remote AG-UI
 * agent `switchyard`; the page (page.mjs, bundled on start) sends each message
 * and each approval through CopilotKit.
 */
import { createServer } from "node:http";
import { startAgUiApp } from "../ag-ui-app.ts";

// CopilotKit's runtime reports usage to CopilotKit unless told not to.
process.env.COPILOTKIT_TELEMETRY_DISABLED ??= "true";
const { HttpAgent } = await import("@ag-ui/client");
const { CopilotRuntime } = await import("@copilotkit/runtime/v2");
const { createCopilotNodeListener } = await import("@copilotkit/runtime/v2/node");
const { build } = await import("esbuild");

const agUiApp = await startAgUiApp();
const runtime = new CopilotRuntime({
  agents: { switchyard: new HttpAgent({ url: new URL("agent", agUiApp.url).href }) },
});
// CopilotKit's runtime also keeps its own copy of each thread and replays it on
// its /agent/:id/connect and /threads routes to whoever names the thread; the
// handler's authorize never sees those. This page only runs: refuse the rest.
const copilotKit = createCopilotNodeListener({
  runtime,
  basePath: "/api/copilotkit",
  activateChannels: false,
  hooks: {
    onBeforeHandler: ({ route }) => {
      if (route.method !== "agent/run" && route.method !== "info") {
        throw new Response("Not served here.", { status: 403 });
      }
    },
  },
});

const script = await build({
  entryPoints: [new URL("page.mjs", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  write: false,
  minify: true,
});
const page = `<!doctype html>
<meta charset="utf-8"><title>Switchyard with CopilotKit</title>
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}textarea{width:100%;font:inherit}</style>
<h1>Switchyard with CopilotKit</h1>
<div id="chat"></div><div id="question"></div>
<form><textarea>Remove every callback that points at the retired host hooks.old-warehouse.example.</textarea>
<button>Send</button></form><p id="status" role="status">Connecting…</p>
<script type="module" src="/page.js"></script>`;

const server = createServer((request, response) => {
  if (request.url.startsWith("/api/copilotkit")) return void copilotKit(request, response);
  if (request.url === "/page.js") {
    response.writeHead(200, { "content-type": "text/javascript" });
    return void response.end(script.outputFiles[0].text);
  }
  if (request.url === "/") {
    response.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy":
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'",
    });
    return void response.end(page);
  }
  response.writeHead(404).end();
});
const port = Number(process.argv[process.argv.indexOf("--port") + 1]) || 0;
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`Open http://127.0.0.1:${server.address().port}/ (Ctrl-C stops it)\n`);
});
process.once("SIGINT", () => {
  server.close();
  void agUiApp.close();
});
