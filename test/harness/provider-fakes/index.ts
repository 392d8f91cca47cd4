// Every hosted DNS-provider adapter with its stand-in, for the shared contract test
// (test/integration/dns-adapter-contract.test.ts), the do-no-harm and the host-property tests. Each
// provider's folder (src/adapters/dns-providers/<id>/stand-in.ts) exports its `fakeCase`; the list is
// written from the folders by `npm run generate` (test/harness/provider-folders.generated.ts).
import { FAKE_CASE_LIST } from '../provider-folders.generated.ts'
import type { FakeCase } from './common.ts'

export type { FakeCase } from './common.ts'

export const FAKE_CASES: FakeCase[] = FAKE_CASE_LIST
