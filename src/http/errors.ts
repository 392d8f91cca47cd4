// moved: re-export kept for the merge; removed by the lead after merging
export * from '../errors.ts'
