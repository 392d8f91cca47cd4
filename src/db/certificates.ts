// Queries of certificates as the API lists them. Statements moved from src/ops/secure.ts verbatim; the
// issuing side is src/domain/certificates.ts.
import type { CertificateRow } from '../domain/certificates.ts'
import type { Sql } from './sql.ts'

/** A tenant's certificates (one application's for a widget token), newest first, removed ones left out. */
export async function certificatesInScope(sql: Sql, p: { tenantId: string }, app: string | null): Promise<CertificateRow[]> {
  return (await sql`
      select * from certificates where tenant_id = ${p.tenantId} and status <> 'removed' and (${app}::text is null or application_id = ${app})
      order by id desc`) as CertificateRow[]
}
