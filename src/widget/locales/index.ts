// Every locale table, for the server side (build.ts serves each as JSON beside the bundle) and tests.
// The bundle itself imports only English (en.ts).
import type { Messages } from './en.ts'
import { en } from './en.ts'
import { ar } from './ar.ts'
import { da } from './da.ts'
import { de } from './de.ts'
import { es } from './es.ts'
import { fi } from './fi.ts'
import { fr } from './fr.ts'
import { he } from './he.ts'
import { it } from './it.ts'
import { ja } from './ja.ts'
import { ko } from './ko.ts'
import { nl } from './nl.ts'
import { pl } from './pl.ts'
import { pt } from './pt.ts'
import { sv } from './sv.ts'
import { tr } from './tr.ts'
import { zh } from './zh.ts'

export const TABLES: Record<string, Messages> = { en: en as Messages, fr, de, es, pt, it, nl, pl, sv, da, fi, tr, ja, ko, zh, ar, he }
