// Every operation Portico serves, in one list. The REST routes, the OpenAPI document and the MCP
// tools are generated from it; an operation missing here exists in no face. (The REST face adds
// `GET /v1/openapi.json`, which describes this list: src/http/openapi.ts.) The list is
// src/ops/operations.ts, which `npm run generate` writes from the operation files
// (src/ops/<area>/<operation>.ts, one operation a file; scripts/operations-registry.ts).
export { OPERATIONS } from './operations.ts'
