// The page's script: CopilotKit's front-end core (what its React provider runs
// on) talking to CopilotKit's runtime. Everything from the agent is shown as
// text, never as HTML.
import { CopilotKitCore } from "@copilotkit/core";

const copilotKit = new CopilotKitCore({ runtimeUrl: "/api/copilotkit" });
const chat = document.getElementById("chat");
const question = document.getElementById("question");
const status = document.getElementById("status");
const form = document.querySelector("form");

const agent = await new Promise((resolve) => {
  const subscription = copilotKit.subscribe({
    onAgentsChanged: ({ agents }) => {
      if (!agents.switchyard) return;
      subscription.unsubscribe();
      resolve(agents.switchyard);
    },
  });
});
status.textContent = "Ready.";

agent.subscribe({
  onMessagesChanged: ({ messages }) => {
    chat.replaceChildren(
      ...messages.map((message) => {
        const line = document.createElement("pre");
        const calls = (message.toolCalls ?? []).map(
          (call) => `${call.function.name} ${call.function.arguments}`,
        );
        line.textContent = `${message.role}: ${[message.content ?? "", ...calls].join("\n")}`;
        return line;
      }),
    );
  },
  onRunErrorEvent: ({ event }) => {
    status.textContent = `Not done (${event.code}): ${event.message}`;
  },
});

async function run(resume) {
  status.textContent = "Running…";
  await copilotKit.runAgent({ agent, ...(resume ? { resume } : {}) });
  // An approval the agent asks for ends the run with an AG-UI interrupt.
  const [interrupt] = agent.pendingInterrupts;
  if (!interrupt) {
    if (!status.textContent.startsWith("Not done")) status.textContent = "Finished.";
    return;
  }
  status.textContent = "Waiting for your answer.";
  const text = document.createElement("pre");
  text.textContent = interrupt.message;
  const answer = (approved) => () => {
    question.replaceChildren();
    const { fingerprint } = interrupt.metadata.switchyard;
    const payload = { approved, fingerprint };
    void run([{ interruptId: interrupt.id, status: "resolved", payload }]);
  };
  const approve = Object.assign(document.createElement("button"), { textContent: "Approve" });
  const deny = Object.assign(document.createElement("button"), { textContent: "Deny" });
  approve.onclick = answer(true);
  deny.onclick = answer(false);
  question.replaceChildren(text, approve, deny);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const content = form.elements[0].value.trim();
  if (content === "" || agent.pendingInterrupts.length > 0) return;
  form.elements[0].value = "";
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content });
  void run();
});
