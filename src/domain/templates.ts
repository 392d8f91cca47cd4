// The one-click setup template catalog (GET /templates): the Domain Connect templates loaded once at
// start from DOMAIN_CONNECT_TEMPLATES_DIR. A file that fails to parse or validate is never dropped
// silently: it is logged at start with its name and reasons, and listed under `rejected` in the
// catalog, while the valid ones are served.
import { createPublicKey } from 'node:crypto'
import { log } from '../logger.ts'
import { loadTemplatesFromDir, templateVariables, type Template } from './domain-connect/template.ts'
import { publicKeyTxtRecords } from './domain-connect/signing.ts'

export interface Rejected {
  file: string
  errors: string[]
}

export class TemplateCatalog {
  readonly templates: Template[]
  readonly rejected: Rejected[]
  readonly ignored: string[]

  constructor(
    readonly dir: string,
    loaded: { templates: Template[]; failures: Rejected[]; ignored?: string[] },
  ) {
    this.templates = loaded.templates
    this.rejected = loaded.failures
    this.ignored = loaded.ignored ?? []
  }

  static load(dir: string): TemplateCatalog {
    const loaded = loadTemplatesFromDir(dir)
    for (const f of loaded.failures) log.error('domain_connect.template_rejected', { dir, file: f.file, errors: f.errors.slice(0, 20), error_count: f.errors.length })
    if (loaded.ignored.length) log.warn('domain_connect.template_files_ignored', { dir, files: loaded.ignored, reason: 'not *.json' })
    log.info('domain_connect.templates_loaded', { dir, loaded: loaded.templates.length, rejected: loaded.failures.length, ignored: loaded.ignored.length })
    return new TemplateCatalog(dir, loaded)
  }

  /** Templates with this serviceId (case-insensitive, as DNS Providers compare), optionally of one providerId. */
  find(serviceId: string, providerId?: string): Template[] {
    const s = serviceId.toLowerCase()
    const p = providerId?.toLowerCase()
    return this.templates.filter((t) => t.serviceId.toLowerCase() === s && (p === undefined || t.providerId.toLowerCase() === p))
  }
}

/** The catalog entry of one template: what an integrator needs to call apply-url or domainconnect:start. */
export function templateOut(t: Template) {
  return {
    provider_id: t.providerId,
    provider_name: t.providerName,
    service_id: t.serviceId,
    service_name: t.serviceName,
    version: t.version ?? null,
    description: t.description ?? null,
    logo_url: t.logoUrl ?? null,
    variables: templateVariables(t),
    variable_description: t.variableDescription ?? null,
    host_required: t.hostRequired,
    multi_instance: t.multiInstance,
    sync_block: t.syncBlock,
    signed: t.syncPubKeyDomain !== undefined,
    sync_pub_key_domain: t.syncPubKeyDomain ?? null,
    sync_redirect_domain: t.syncRedirectDomain ?? null,
    groups: [...new Set(t.records.flatMap((r) => (r.groupId === undefined ? [] : [r.groupId])))],
    record_types: [...new Set(t.records.map((r) => r.type))],
    records: t.records,
    file: t.fileName ?? null,
  }
}

/** The TXT records an integrator publishes at `<keyHost>.<syncPubKeyDomain>` for its signing key. */
export function signingPublication(privateKeyPem: string | null, keyHost: string, templates: Template[]) {
  if (!privateKeyPem) return null
  const pub = createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString()
  const domains = [...new Set(templates.flatMap((t) => (t.syncPubKeyDomain ? [t.syncPubKeyDomain.toLowerCase()] : [])))]
  return { key: keyHost, algorithm: 'RS256', publish_at: domains.map((d) => `${keyHost}.${d}`), txt: publicKeyTxtRecords(pub) }
}
