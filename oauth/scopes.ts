// moved: re-export kept for the merge; removed by the lead after merging
export { AGENT_SCOPES, AGENT_SCOPE_IDS, DEFAULT_AGENT_SCOPE_IDS, agentScope, parseScopes, type AgentScope } from '../src/domain/rbac.ts'
