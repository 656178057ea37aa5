/**
 * The request's body as text, read up to `maxBytes`: a larger one (as
 * declared, or as it arrives) is answered 413 without reading the rest.
 */
export async function readCappedBody(
  request: Request,
  maxBytes: number,
): Promise<string | Response> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return tooLarge(maxBytes);
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) return tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(maxBytes: number): Response {
  return new Response(
    `The request body is larger than ${maxBytes} bytes, the most this endpoint reads (its maxBodyBytes): send a shorter RunAgentInput (fewer or shorter messages, less state), or raise maxBodyBytes if such bodies are expected.\n`,
    {
      status: 413,
      headers: { "content-type": "text/plain; charset=utf-8" },
    },
  );
}
