// Queries of certificates as the API lists them. Statements moved from src/ops/secure.ts verbatim; the
// issuing side is src/domain/certificates.ts.
import type { Sql } from './sql.ts'

export interface CertificateRow {
  id: string
  tenant_id: string
  application_id: string
  connection_id: string
  domain: string
  names: string[]
  status: 'pending' | 'issued' | 'failed' | 'removed'
  managed: boolean
  issuer: string | null
  not_before: Date | null
  not_after: Date | null
  renew_after: Date | null
  cert_pem: string | null
  key_sealed: string | null
  last_error: string | null
  attempts: number
  created_at: Date
  updated_at: Date
}

/** A tenant's certificates (one application's for a widget token), newest first, removed ones left out. */
export async function certificatesInScope(sql: Sql, p: { tenantId: string }, app: string | null): Promise<CertificateRow[]> {
  return (await sql`
      select * from certificates where tenant_id = ${p.tenantId} and status <> 'removed' and (${app}::text is null or application_id = ${app})
      order by id desc`) as CertificateRow[]
}
