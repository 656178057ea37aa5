export { type ScriptedApproval, ScriptedApprover } from "./scripted-approver.js";
export {
  type ScriptedAnswer,
  type ScriptedFailure,
  ScriptedModel,
  type ScriptedStep,
  type ScriptedStepContext,
  type ScriptedToolCall,
} from "./scripted-model.js";
