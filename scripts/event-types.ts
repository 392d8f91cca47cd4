// The published list of event types, test/snapshots/event-types.json, written by `npm run generate` from
// the event registry (src/domain/events.ts) and committed: what receivers may rely on. It is derived,
// so a new type is no hand edit (declare it, run generate, commit the line it adds), but it only grows:
// generate refuses to write a list that drops a type already published (removed or renamed in the
// registry), naming it, and test/unit/events-registry.test.ts fails while the registry and the list
// differ. Taking a type back is a breaking change to the contract, made on purpose: delete its line from
// the list by hand, with the registry change, and say so to integrators.

export const PUBLISHED_EVENT_TYPES = 'test/snapshots/event-types.json'

/** Published types the registry no longer declares (removed or renamed). */
export function withdrawnTypes(published: readonly string[], declared: readonly string[]): string[] {
  return published.filter((t) => !declared.includes(t))
}

/** The list's text: the registry's types in its order; throws, naming them, when it would drop a published one. */
export function eventTypesFile(published: readonly string[] | null, declared: readonly string[]): string {
  const gone = withdrawnTypes(published ?? [], declared)
  if (gone.length)
    throw new Error(
      `${PUBLISHED_EVENT_TYPES}: published event types no longer declared in src/domain/events.ts: ${gone.join(', ')}. ` +
        'Receivers rely on them: declare them again, or, to take them back on purpose (a breaking change), delete them from the list by hand.',
    )
  return JSON.stringify({ published: declared }, null, 2) + '\n'
}

/** The published list as committed (null when there is none yet). */
export function parsePublished(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as { published: string[] }).published
}
