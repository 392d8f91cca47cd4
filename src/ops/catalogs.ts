export { CATALOGS_TAG } from './catalogs/shared.ts'
