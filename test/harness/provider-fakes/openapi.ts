// The providers whose published OpenAPI document the contract test holds adapter and stand-in to
// (test/fixtures/provider-openapi/, origins in sources.json), with each stated exception: where the
// published document is known to disagree with the live API, the line says so and why.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AwsRestXmlModel } from '../aws-model-validate.ts'
import { discoveryToOpenApi } from '../discovery.ts'
import { OpenApiDocument, type DescriptionCheck } from '../openapi-validate.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/provider-openapi')
const SOURCES = JSON.parse(readFileSync(join(FIXTURES, 'sources.json'), 'utf8')) as Record<string, { document: string; base: string; format?: 'aws-rest-xml' | 'google-discovery'; pathsIgnoreCase?: boolean; oneOfAsAnyOf?: boolean; operations: string[] }>

export interface Conformance {
  document: DescriptionCheck
  source: string
  /** Violations that are the document's own gaps, not the adapter's or the stand-in's: each a regular expression with its reason. */
  exceptions: { match: RegExp; why: string }[]
}

const EXCEPTIONS: Record<string, Conformance['exceptions']> = {
  dnsimple: [
    // https://developer.dnsimple.com/v2/#errors and #rate-limiting: every endpoint answers 404 for an
    // unknown zone and 429 past the rate limit, described once in prose, not on each operation.
    { match: /^GET \/\{account\}\/zones\/\{zone\}\/records \((404|429)\): status \d+ is not documented$/, why: 'DNSimple documents 404 and 429 for every endpoint in prose only' },
  ],
  netlify: [
    // The API answers null for the fields a record's type does not use (an A record's priority, flag,
    // tag; site_id outside a site's zone); the Swagger 2 document types them without x-nullable.
    { match: /^(GET|POST) \/dns_zones\/\{zone_id\}\/dns_records \((200|201)\): response \/(\*\/)?(priority|site_id|flag|tag) must be (integer|string)$/, why: 'Netlify answers null for unused record fields; its Swagger document lacks x-nullable' },
  ],
  godaddy: [
    // The Swagger describes the record list only as GET …/records/{type}/{name} "optionally with the
    // specified Type and/or Name"; clients (lego, libdns) read the whole zone at GET …/records.
    { match: /^GET \/v1\/domains\/[^/]+\/records \(\d+\): not an operation of the document$/, why: 'GoDaddy\'s record list is its GET …/records/{type}/{name} with both left out' },
  ],
  scaleway: [
    // https://www.scaleway.com/en/developers/api/#errors: errors and the rate limit are described for
    // the whole API; the document lists only each operation's 200.
    { match: /^(GET|PATCH) \/domain\/v2beta1\/dns-zones(\/\{dns_zone\}\/records)? \((401|404|409|429)\): status \d+ is not documented$/, why: 'Scaleway documents errors and rate limiting for the whole API only' },
  ],
  exoscale: [
    // Exoscale's document gives each operation its 200 only; the error answers (403 for a refused
    // signature, 404 for a domain the key does not reach, 429) are described once for the whole API
    // (https://openapi-v2.exoscale.com/topic/topic-api-request-signature and the API's error model).
    { match: /^GET \/dns-domain(\/\{domain-id\}\/record)? \((403|404|429)\): status \d+ is not documented$/, why: 'Exoscale documents only the 200 of each operation' },
  ],
  route53: [
    // https://docs.aws.amazon.com/Route53/latest/APIReference/CommonErrors.html: errors every AWS API
    // answers (a throttled request, a key AWS does not know, a signature that does not match, a
    // policy that refuses) are listed once for all services, not in the Route 53 model's operations.
    { match: /^(GET|POST) \/2013-04-01\/hostedzone[^ ]* \(400\): error Throttling is not documented for \w+$/, why: 'Throttling (400) is one of AWS\'s common errors, not in the service model' },
    { match: /^(GET|POST) \/2013-04-01\/hostedzone[^ ]* \(403\): error (InvalidClientTokenId|SignatureDoesNotMatch|MissingAuthenticationToken|AccessDenied) is not documented for \w+$/, why: 'refused credentials (403) are AWS\'s common errors, not in the service model' },
  ],
  vultr: [
    // The document's introduction: "If your application sends more than 30 requests per second, the
    // API may return HTTP status code 429" (said once for the whole API, listed on no operation).
    { match: /^GET \/domains(\/\{dns-domain\}\/records)? \(429\): status 429 is not documented$/, why: 'Vultr documents its 429 in the document\'s introduction only' },
  ],
  'google-cloud-dns': [
    // A service-account key is exchanged for an access token at Google's OAuth 2.0 token endpoint
    // (https://developers.google.com/identity/protocols/oauth2/service-account, RFC 7523), which is
    // not part of the Cloud DNS API.
    { match: /^POST \/token \((200|400)\): not an operation of the document$/, why: 'the OAuth 2.0 token endpoint is Google\'s sign-in service, not Cloud DNS' },
    // A discovery document describes no error answers: Google's errors ({error: {code, message,
    // status, errors}}) are described once for every API (https://cloud.google.com/apis/design/errors).
    { match: /^(GET|POST) \/dns\/v1\/projects\/\{project\}\/managedZones(\/\{managedZone\}\/(rrsets|changes))? \((400|401|403|404|409|412|429)\): status \d+ is not documented$/, why: 'discovery documents carry no errors; Google describes them for all its APIs at once' },
  ],
  azure: [
    // A service principal's token comes from Microsoft Entra ID's client-credentials grant
    // (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow), not
    // from Resource Manager, whose DNS document this is.
    { match: /^POST \/[^/]+\/oauth2\/v2\.0\/token \((200|400|401)\): not an operation of the document$/, why: 'the token endpoint is Microsoft Entra ID\'s, not Azure DNS\'s' },
  ],
  linode: [
    // The document gives a record's name minLength 1, yet its own prose asks for "" for a Null MX and
    // for a CAA record on the whole Domain, and the API answers "" for every record at the apex (as
    // linodego and octodns read it).
    { match: /^(GET|POST) \/domains\/\{domainId\}\/records \((200)\): (request|response) (\/data\/\*)?\/name must NOT have fewer than 1 characters$/, why: 'Linode\'s apex records are named "", which the document\'s prose allows and its minLength does not' },
    // https://techdocs.akamai.com/linode-api/reference/errors and …/rate-limits: errors (404 for a
    // Domain the token does not reach) and 429 are described once for the whole API.
    { match: /^GET \/domains(\/\{domainId\}\/records)? \((401|403|404|429)\): status \d+ is not documented$/, why: 'Linode describes its errors and rate limits for the whole API only' },
  ],
  vercel: [
    // The copy carried marks teamId required on every operation; Vercel's own SDK, generated from
    // the same published document (vercel/sdk src/models/getrecordsop.ts: `teamId?: string`), and the
    // reference have it optional: without it a request acts on the token's own account.
    { match: /^(GET|POST|DELETE) \/v[245]\/domains[^ ]* \(\d+\): required query parameter teamId missing$/, why: 'teamId is optional at Vercel; the copy carried marks it required' },
    // https://vercel.com/docs/rest-api#rate-limits: 429 with X-RateLimit-Reset, described for the whole API.
    { match: /^GET \/v[45]\/domains(\/\{domain\}\/records)? \(429\): status 429 is not documented$/, why: 'Vercel documents its rate limit for the whole API only' },
  ],
  hostinger: [
    // https://developers.hostinger.com/#description/rate-limiting and the 404 of a domain outside the
    // account are described for the whole API, not per operation.
    { match: /^GET \/api\/dns\/v1\/zones\/\{domain\} \((404|429)\): status \d+ is not documented$/, why: 'Hostinger documents rate limiting and unknown domains for the whole API only' },
  ],
}

/** The checker for a description's format: OpenAPI 3 / Swagger 2 (the default), an AWS REST-XML service model, a Google discovery document. */
function describe(s: (typeof SOURCES)[string], doc: unknown): DescriptionCheck {
  if (s.format === 'aws-rest-xml') return new AwsRestXmlModel(doc, s.base)
  if (s.format === 'google-discovery') return new OpenApiDocument(discoveryToOpenApi(doc), s.base)
  return new OpenApiDocument(doc, s.base, { ignoreCase: s.pathsIgnoreCase, oneOfAsAnyOf: s.oneOfAsAnyOf })
}

export const OPENAPI: Record<string, Conformance> = Object.fromEntries(
  Object.entries(SOURCES).map(([id, s]) => [
    id,
    { document: describe(s, JSON.parse(readFileSync(join(FIXTURES, `${id}.json`), 'utf8'))), source: s.document, exceptions: EXCEPTIONS[id] ?? [] },
  ]),
)
