import type { ProviderRouting } from "./chat-types.js";

/**
 * Hosts of well-known providers, with their `gen_ai.provider.name` (the
 * OpenTelemetry GenAI semantic conventions' well-known values; OpenRouter,
 * which the list does not name, by its own name). A suffix beginning with a
 * dot matches any subdomain.
 */
const knownHosts: readonly (readonly [host: string, name: string])[] = [
  ["api.openai.com", "openai"],
  [".openai.azure.com", "azure.ai.openai"],
  [".services.ai.azure.com", "azure.ai.inference"],
  [".inference.ai.azure.com", "azure.ai.inference"],
  ["models.github.ai", "azure.ai.inference"],
  ["api.anthropic.com", "anthropic"],
  ["generativelanguage.googleapis.com", "gcp.gemini"],
  ["aiplatform.googleapis.com", "gcp.vertex_ai"],
  [".aiplatform.googleapis.com", "gcp.vertex_ai"],
  [".amazonaws.com", "aws.bedrock"],
  ["api.cohere.com", "cohere"],
  ["api.cohere.ai", "cohere"],
  ["api.mistral.ai", "mistral_ai"],
  ["api.groq.com", "groq"],
  ["api.deepseek.com", "deepseek"],
  ["api.x.ai", "x_ai"],
  ["api.perplexity.ai", "perplexity"],
  [".ml.cloud.ibm.com", "ibm.watsonx.ai"],
  ["openrouter.ai", "openrouter"],
];

/**
 * The provider a client talks to, as a `chat` span's `gen_ai.provider.name`:
 * the well-known provider behind `url`'s host, else the first provider of
 * the client's routing (`provider.order[0]`, lower-cased), else undefined.
 * Only a Bedrock host counts for `.amazonaws.com`.
 */
export function providerNameOf(url: URL, routing: ProviderRouting | undefined): string | undefined {
  const host = url.hostname.toLowerCase();
  for (const [known, name] of knownHosts) {
    const matches = known.startsWith(".") ? host.endsWith(known) : host === known;
    if (!matches) continue;
    if (name === "aws.bedrock" && !host.startsWith("bedrock")) continue;
    return name;
  }
  const first = routing?.order?.[0];
  return typeof first === "string" && first.trim() !== "" ? first.trim().toLowerCase() : undefined;
}
