// moved: re-export kept for the merge; removed by the lead after merging
export * from '../adapters/key-cache.ts'
export { KEYS_CHANNEL } from '../db/channels.ts'
