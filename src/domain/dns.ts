// Until src/domain/webhook-delivery.ts takes it from src/adapters/dns.ts (it is being changed elsewhere).
export type { Dns } from '../adapters/dns.ts'
