import { issueLike } from './shared.ts'

export const issueCertificateOp = issueLike(
  'ssl.issue',
  '/connections/{id}/ssl:issue',
  'Issue the certificate now',
  'Orders the certificate from the ACME CA (HTTP-01 answered through the edge) and puts it on the edge. The edge sweep does this by ' +
    'itself within a minute of a connection pointed at the edge going live; this call does it at once. `secure_status` events follow ' +
    'the certificate (`pending`, then `issued` or `failed`). A live connection only (409 otherwise); a CA that does not issue is 422 ' +
    '`certificate_failed` with its reason, also kept as `last_error`. A test domain (docs/test-mode.md) other than ' +
    '`certificate-failed.sandbox.example` is ordered none: 400 `invalid_request` (`details.reason: test_mode_no_certificate`), nothing recorded.',
)
