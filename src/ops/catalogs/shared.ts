// Discovery and catalogs (the API contract, section 4): health, configuration, the RBAC matrix and the plan
// catalog. All of them need no credential. The OpenAPI document is the REST face's (src/http/openapi.ts).
// Here: what the area's operations share; each operation is a file of its own beside this one.


export const CATALOGS_TAG = 'Discovery and catalogs'

export const TAG = CATALOGS_TAG

/** What the database watch says (src/db/watch.ts). */
export const DB_STATES = ['ok', 'read_only', 'full', 'unreachable', 'not_answering'] as const

export type DbStateValue = (typeof DB_STATES)[number]

export async function databaseState(ctx: { services: { database?: { state(): Promise<DbStateValue> } } }): Promise<DbStateValue> {
  return ctx.services.database ? ctx.services.database.state() : 'ok'
}
