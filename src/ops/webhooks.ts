export { SIGNING_NOTE } from './webhooks/shared.ts'
