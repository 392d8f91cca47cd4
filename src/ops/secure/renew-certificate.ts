import { issueLike } from './shared.ts'

export const renewCertificateOp = issueLike(
  'ssl.renew',
  '/connections/{id}/ssl:renew',
  'Renew the certificate now',
  'Orders a new certificate before `renew_after` (the renewal job renews after it by itself). The current certificate keeps being ' +
    'served until the new one is issued; a failed renewal leaves it in place with `last_error`. A connection validated through ' +
    'the `_acme-challenge` delegation has it looked up first: gone, no order is placed and the certificate is answered with ' +
    '`renewal_warning` naming the record to put back (409 `conflict`, `dcv_delegation_missing`, when none is issued yet).',
)
