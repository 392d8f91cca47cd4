// Every operation Portico serves, in one list. The REST routes, the OpenAPI document and the MCP
// tools are generated from it; an operation missing here exists in no face. (The REST face adds
// `GET /v1/openapi.json`, which describes this list: src/http/openapi.ts.)
import type { AnyOp } from './registry.ts'
import { SECURE_OPERATIONS } from './secure.ts'
import { POWER_OPERATIONS } from './power.ts'
import { applyUrlOp, domainConnectCallbackOp, domainConnectStartOp, listTemplatesOp } from './domain-connect.ts'
import { listAuditOp } from './audit.ts'
import { addPushSubscriptionOp, removePushSubscriptionOp, emailChangedOp, getEmailSenderOp, pushTestOp, putEmailSenderOp, verifyEmailSenderOp } from './console.ts'
import { getConsentRequestOp, listAgentGrantsOp, revokeAgentGrantOp } from './agents.ts'
import { connectionMonitorOp, listMonitorDomainsOp, monitorCheckOp } from './monitor.ts'
import { createShareOp, getShareOp, listShareLinksOp, recheckShareOp, revokeShareLinkOp } from './share.ts'
import { checkoutOp, fulfillOp, listOrdersOp, purchaseOp, quoteOp, searchDomainsOp } from './sell.ts'
import { planCheckoutOp, portalOp, setupOp, standingOp, statusOp } from './billing.ts'
import { EVENT_OPERATIONS } from './events.ts'
import { createWebhookOp, deleteWebhookOp, listDeliveriesOp, listWebhooksOp, retryDeliveryOp, rotateWebhookSecretOp } from './webhooks.ts'
import {
  bulkConnectOp,
  checkDomainOp,
  countConnectionsOp,
  createConnectionOp,
  deleteConnectionOp,
  disconnectOp,
  getConnectionOp,
  getConnectTargetOp,
  getRecordsOp,
  listConnectionsOp,
  listProvidersOp,
  getProviderOp,
  putConnectTargetOp,
  putRecordsOp,
  recheckOp,
} from './connect.ts'
import { connectionStatusOp } from './connection-status.ts'
import { applyOp } from './api-rail.ts'
import { reapplyOp } from './reapply.ts'
import { PROVIDER_ACCOUNT_OPERATIONS } from './provider-accounts.ts'
import { oauthCallbackOp, oauthStartOp } from './oauth-rail.ts'
import { configOp, healthOp, plansOp, rbacOp, readinessOp } from './catalogs.ts'
import { acceptMemberOp, createTokenOp, inviteMemberOp, listMembersOp, listWidgetTokensOp, removeMemberOp, revokeWidgetTokenOp, updateMemberOp } from './members.ts'
import {
  createApplicationOp,
  createKeyOp,
  createTenantOp,
  defaultKeyOp,
  getApplicationOp,
  getTenantOp,
  listApplicationsOp,
  listKeysOp,
  provisionOp,
  putBrandingOp,
  revokeKeyOp,
  rotateSecretOp,
} from './tenancy.ts'

export const OPERATIONS: AnyOp[] = [
  healthOp,
  readinessOp,
  configOp,
  rbacOp,
  plansOp,
  createTenantOp,
  getTenantOp,
  provisionOp,
  defaultKeyOp,
  createApplicationOp,
  listApplicationsOp,
  getApplicationOp,
  putBrandingOp,
  createKeyOp,
  listKeysOp,
  revokeKeyOp,
  rotateSecretOp,
  createTokenOp,
  listWidgetTokensOp,
  revokeWidgetTokenOp,
  inviteMemberOp,
  listMembersOp,
  updateMemberOp,
  removeMemberOp,
  acceptMemberOp,
  listAuditOp,
  getEmailSenderOp,
  putEmailSenderOp,
  verifyEmailSenderOp,
  addPushSubscriptionOp,
  removePushSubscriptionOp,
  pushTestOp,
  emailChangedOp,
  listProvidersOp,
  getProviderOp,
  getConnectTargetOp,
  putConnectTargetOp,
  checkDomainOp,
  createConnectionOp,
  listConnectionsOp,
  countConnectionsOp,
  bulkConnectOp,
  getConnectionOp,
  connectionStatusOp,
  getRecordsOp,
  putRecordsOp,
  recheckOp,
  deleteConnectionOp,
  disconnectOp,
  createWebhookOp,
  rotateWebhookSecretOp,
  listWebhooksOp,
  deleteWebhookOp,
  listDeliveriesOp,
  retryDeliveryOp,
  ...EVENT_OPERATIONS,
  getConsentRequestOp,
  listAgentGrantsOp,
  revokeAgentGrantOp,
  searchDomainsOp,
  quoteOp,
  checkoutOp,
  fulfillOp,
  purchaseOp,
  listOrdersOp,
  standingOp,
  setupOp,
  planCheckoutOp,
  statusOp,
  portalOp,
  monitorCheckOp,
  listMonitorDomainsOp,
  connectionMonitorOp,
  createShareOp,
  listShareLinksOp,
  revokeShareLinkOp,
  getShareOp,
  recheckShareOp,
  applyOp,
  reapplyOp,
  ...PROVIDER_ACCOUNT_OPERATIONS,
  oauthStartOp,
  oauthCallbackOp,
  listTemplatesOp,
  applyUrlOp,
  domainConnectStartOp,
  domainConnectCallbackOp,
  ...SECURE_OPERATIONS,
  ...POWER_OPERATIONS,
]
