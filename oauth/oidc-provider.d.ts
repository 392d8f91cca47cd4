// The part of oidc-provider (v9, shipped without type declarations) that Portico uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface InteractionModel {
    uid: string
    exp: number
    returnTo: string
    params: Record<string, unknown>
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> }
    session?: { accountId?: string }
    grantId?: string
    result?: Record<string, unknown>
    save(ttl: number): Promise<string>
  }

  export interface GrantModel {
    jti?: string
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    save(ttl?: number): Promise<string>
    destroy(): Promise<void>
  }

  export interface ClientModel {
    clientId: string
    grantTypeAllowed(type: string): boolean
  }

  export const errors: { InvalidTarget: new (description?: string) => Error }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    issuer: string
    Interaction: { find(uid: string): Promise<InteractionModel | undefined> }
    Grant: { new (props: { accountId: string; clientId: string }): GrantModel; find(id: string): Promise<GrantModel | undefined> }
    Client: { validate(metadata: Record<string, unknown>): Promise<void>; find(id: string): Promise<ClientModel | undefined> }
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    on(event: string, listener: (...args: any[]) => void): this
  }
}
