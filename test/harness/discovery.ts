// A Google API discovery document (https://developers.google.com/discovery/v1/reference/apis) as the
// OpenAPI 3.0 shapes test/harness/openapi-validate.ts checks exchanges against: one path per method
// (its `flatPath` under the service path), its path and query parameters, its request schema as the
// JSON request body and its response schema as the 200 answer. Discovery schemas are JSON Schema
// already, apart from `$ref` naming a schema (`"ResourceRecordSet"`) instead of pointing at it.
// A discovery document describes no error answers: Google's errors (`{error: {code, message,
// status, errors}}`, https://cloud.google.com/apis/design/errors) are the same for every API.
type Json = any

/** A discovery schema as JSON Schema: references point into `components.schemas`, discovery's own keys (`id`, `annotations`, `enumDescriptions`) left out. */
function schema(node: Json): Json {
  if (Array.isArray(node)) return node.map(schema)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries<Json>(node)) {
    if (k === 'id' || k === 'annotations' || k === 'enumDescriptions' || k === 'location' || k === 'required') continue
    if (k === '$ref') out.$ref = `#/components/schemas/${v}`
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries<Json>(v).map(([p, s]) => [p, schema(s)]))
    else out[k] = schema(v)
  }
  return out
}

/** Every method of the document, its resources nested to any depth. */
function methods(resources: Json): Json[] {
  return Object.values<Json>(resources ?? {}).flatMap((r) => [...Object.values<Json>(r.methods ?? {}), ...methods(r.resources)])
}

export function discoveryToOpenApi(doc: Json): Json {
  if (doc.kind !== 'discovery#restDescription') throw new Error('not a discovery document')
  const paths: Json = {}
  for (const m of methods(doc.resources)) {
    const path = '/' + String(doc.servicePath ?? '') + String(m.flatPath ?? m.path)
    const parameters = Object.entries<Json>(m.parameters ?? {}).map(([name, p]) => ({ name, in: p.location, required: p.location === 'path' || !!p.required, schema: schema(p) }))
    const op: Json = { operationId: m.id, parameters, responses: { '200': { description: 'Successful response', ...(m.response ? { content: { 'application/json': { schema: schema(m.response) } } } : {}) } } }
    if (m.request) op.requestBody = { required: true, content: { 'application/json': { schema: schema(m.request) } } }
    ;(paths[path] ??= {})[String(m.httpMethod).toLowerCase()] = op
  }
  return { openapi: '3.0.0', info: { title: doc.title, version: doc.version }, servers: [{ url: doc.rootUrl }], paths, components: { schemas: Object.fromEntries(Object.entries<Json>(doc.schemas ?? {}).map(([k, s]) => [k, schema(s)])) } }
}
