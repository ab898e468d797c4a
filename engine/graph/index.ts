// The pure graph package: the job model, its validation and key groups. The designer imports
// this in the browser, so nothing reachable from here may use a Node API.
export * from './canonicalJson.js';
export { countText } from './countText.js';
export * from './cycles.js';
export * from './inputFiles.js';
export * from './jobFolderPath.js';
export * from './jobReach.js';
export * from './jsonSchema.js';
export * from './keyGroups.js';
export { keysOfText, keyText } from './keyText.js';
export * from './kinds/builtinKinds.js';
export { ENV_REFERENCE } from './kinds/connectorParams.js';
export * from './kinds/fieldConditions.js';
export * from './kinds/kindDescriptor.js';
export * from './kinds/kindRegistry.js';
export * from './kinds/paramFields.js';
export * from './operatorKinds.js';
export * from './plan.js';
export * from './problem.js';
export * from './savepointNames.js';
export * from './schema.js';
export * from './serverAddress.js';
export { formatJsonPath } from './validation/jsonPath.js';
export { parseJobText } from './validation/jsonText.js';
export * from './validation/problemCodes.js';
export { type EmittedPorts, scanEmittedPorts } from './validation/userCodeChecks.js';
export * from './validation/validateJob.js';
