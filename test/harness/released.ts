// What has been released: the first-parent history of `main` in this checkout's git repository
// (main is what has landed; there are no tags). Used by the test that no released migration changes
// and by the upgrade test that runs earlier mains on their data.
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './processes.ts'

export function git(args: string[], opts: { cwd?: string } = {}): string {
  const r = Bun.spawnSync(['git', ...args], { cwd: opts.cwd ?? ROOT, stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString().trim()}`)
  return r.stdout.toString().trim()
}

/** The released branch: `main`, or `origin/main` in a clone that has no local main. */
export function releasedRef(): string {
  for (const ref of ['main', 'origin/main']) {
    try {
      git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
      return ref
    } catch {
      // not here
    }
  }
  throw new Error('no main branch in this checkout: the released migrations cannot be read (CI and developers have one)')
}

export interface MigrationState {
  commit: string
  date: string
  /** File name -> blob id, as main had them at that commit. */
  files: Map<string, string>
}

/** Every first-parent commit of main that changed migrations/, oldest first, with the files it left. */
export function migrationHistory(ref = releasedRef()): MigrationState[] {
  const commits = git(['log', '--first-parent', '--reverse', '--format=%H %cI', ref, '--', 'migrations/'])
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ') as [string, string])
  return commits.map(([commit, date]) => {
    const files = new Map<string, string>()
    for (const line of git(['ls-tree', commit, 'migrations/']).split('\n').filter(Boolean)) {
      const [meta, path] = line.split('\t') as [string, string]
      const name = path.slice('migrations/'.length)
      if (/^\d{4}_[\w-]+\.sql$/.test(name)) files.set(name, meta.split(' ')[2]!)
    }
    return { commit, date, files }
  })
}

/** The text of one blob. */
export const blobText = (blob: string): string => git(['cat-file', 'blob', blob])

/** A commit's tree written out under `dir` (git archive: nothing of the repository changes), with this checkout's node_modules. */
export function checkout(commit: string, dir: string): string {
  mkdirSync(dir, { recursive: true })
  const archive = Bun.spawnSync(['git', 'archive', '--format=tar', commit], { cwd: ROOT, stdout: 'pipe' })
  if (archive.exitCode !== 0) throw new Error(`git archive ${commit} failed`)
  const untar = Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout })
  if (untar.exitCode !== 0) throw new Error(`tar of ${commit} failed`)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}
