/**
 * The one page of the ag-ui-app example: a chat over AG-UI in plain browser
 * JavaScript. Each message posts a RunAgentInput to `/agent` on the same
 * thread (the server keeps the conversation), reads the events as they
 * stream, shows each approval question (as text: nothing from the agent or
 * a service is read as HTML) with when it expires, and answers it with a
 * `resume` entry naming the fingerprint of the action it showed. While a
 * question is open the thread takes no new message: answer it first. A
 * refusal or failure shows its code and words.
 */
export const agUiPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard over AG-UI</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
  textarea { width: 100%; min-height: 4rem; font: inherit; }
  pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; padding: .5rem; }
  .interrupt { border: 2px solid #c60; padding: .5rem 1rem; margin: 1rem 0; }
  #chat { list-style: none; padding: 0; }
  #chat li { margin: .5rem 0; padding: .5rem .75rem; border-radius: .5rem; white-space: pre-wrap; }
  #chat li.user { background: #e8f0fe; margin-left: 4rem; }
  #chat li.assistant { background: #f4f4f4; margin-right: 4rem; }
  #log li { color: #555; }
</style>
</head>
<body>
<h1>Switchyard over AG-UI</h1>
<ol id="chat" aria-label="Conversation"></ol>
<section id="questions" aria-label="Approval questions"></section>
<form id="task">
  <label for="message">Message</label>
  <textarea id="message" name="message">Remove every callback that points at the retired host hooks.old-warehouse.example. Leave all other callbacks alone.</textarea>
  <button type="submit">Send</button>
</form>
<p id="status" role="status">Idle.</p>
<details><summary>Events</summary><ol id="log"></ol></details>
<script type="module">
// One thread per page: the server holds its conversation and owns it to the person who started it.
const threadId = crypto.randomUUID();
const status = document.getElementById("status");
const chat = document.getElementById("chat");
const log = document.getElementById("log");
const questions = document.getElementById("questions");
const send = document.querySelector("#task button");
let reply;

function note(text) {
  const item = document.createElement("li");
  item.textContent = text;
  log.append(item);
}

function say(role, text) {
  const item = document.createElement("li");
  item.className = role;
  item.textContent = text;
  chat.append(item);
  return item;
}

async function run(input) {
  status.textContent = "Running…";
  send.disabled = true;
  const response = await fetch("/agent", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ threadId, runId: crypto.randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, messages: [], ...input }),
  });
  if (!response.ok) {
    status.textContent = "The server refused the request: " + (await response.text());
    send.disabled = false;
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const blocks = buffer.split("\\n\\n");
    buffer = blocks.pop();
    for (const block of blocks) {
      if (block.startsWith("data: ")) handle(JSON.parse(block.slice(6)));
    }
  }
  send.disabled = pending.size > 0;
}

function handle(event) {
  note(event.type + (event.toolCallName ? " " + event.toolCallName : ""));
  if (event.type === "TEXT_MESSAGE_START") reply = say("assistant", "");
  if (event.type === "TEXT_MESSAGE_CONTENT") reply.textContent += event.delta;
  // Every refusal and failure has a code (see the docs' list) and words for a person.
  if (event.type === "RUN_ERROR") status.textContent = "Not done (" + event.code + "): " + event.message;
  if (event.type === "RUN_FINISHED") {
    if (event.outcome && event.outcome.type === "interrupt") {
      status.textContent = "Waiting for your answer.";
      event.outcome.interrupts.forEach(ask);
    } else {
      status.textContent = "Finished.";
    }
  }
}

const pending = new Map();

function ask(interrupt) {
  const action = interrupt.metadata.switchyard;
  const article = document.createElement("article");
  article.className = "interrupt";
  const question = document.createElement("pre");
  question.className = "question";
  question.textContent = interrupt.message;
  const args = document.createElement("pre");
  args.className = "arguments";
  args.textContent = JSON.stringify(action.arguments, null, 2);
  const expires = document.createElement("p");
  expires.textContent = interrupt.expiresAt ? "Answer before " + new Date(interrupt.expiresAt).toLocaleString() + "." : "";
  const approve = document.createElement("button");
  approve.textContent = "Approve";
  const deny = document.createElement("button");
  deny.textContent = "Deny";
  article.append(question, args, expires, approve, deny);
  questions.append(article);
  pending.set(interrupt.id, { article, approved: undefined, fingerprint: action.fingerprint });
  approve.addEventListener("click", () => decide(interrupt.id, true));
  deny.addEventListener("click", () => decide(interrupt.id, false));
}

function decide(id, approved) {
  const entry = pending.get(id);
  entry.approved = approved;
  entry.article.querySelectorAll("button").forEach((button) => (button.disabled = true));
  // AG-UI answers every open interrupt of a run in one resume.
  if ([...pending.values()].some((open) => open.approved === undefined)) return;
  const resume = [...pending].map(([interruptId, open]) => ({
    interruptId,
    status: "resolved",
    payload: { approved: open.approved, fingerprint: open.fingerprint },
  }));
  pending.clear();
  questions.replaceChildren();
  run({ resume }).catch((error) => (status.textContent = String(error)));
}

document.getElementById("task").addEventListener("submit", (event) => {
  event.preventDefault();
  const box = document.getElementById("message");
  const content = box.value;
  if (content.trim() === "") return;
  say("user", content);
  box.value = "";
  // Only the new message goes: the server keeps the thread and never takes history from a client.
  run({ messages: [{ id: crypto.randomUUID(), role: "user", content }] }).catch(
    (error) => (status.textContent = String(error)),
  );
});
</script>
</body>
</html>
`;
