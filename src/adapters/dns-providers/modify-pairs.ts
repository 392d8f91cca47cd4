// For APIs with an in-place record update (DNSPod's ModifyRecord, Alibaba Cloud DNS's
// UpdateDomainRecord): a record the diff would delete and a record of the same name and type it would
// create are one update instead, so a changed single-value set (a new address, a new TTL) is never
// briefly empty and keeps its record id.
import type { NewRecord, ProviderRecord } from './record-based.ts'

export function pairUpdates(deletes: ProviderRecord[], creates: NewRecord[]) {
  const rest = [...deletes]
  const updates: { item: ProviderRecord; to: NewRecord }[] = []
  const added: NewRecord[] = []
  for (const c of creates) {
    const i = rest.findIndex((d) => d.name === c.name && d.type === c.type)
    if (i === -1) added.push(c)
    else updates.push({ item: rest.splice(i, 1)[0]!, to: c })
  }
  return { deletes: rest, updates, creates: added }
}
