// The server's answers the widget reads, typed from the registry's closed schemas
// (src/ops/widget-schemas.ts). Type-only: nothing of the server enters the bundle.
export type { ApplicationFace, BlockedReason, Conflict, ConnectionStatus, DomainCheck, RecordState, SecureState } from '../ops/widget-schemas.ts'
