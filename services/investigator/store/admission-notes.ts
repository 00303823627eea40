/**
 * Why an issue was not investigated (issue_admission_notes, migration 008): admission's last word on
 * an issue it did not admit, for the issue page and the JSON read. Written in one statement per
 * batch, and only where the note changed, so a busy issue's notes do not churn.
 */
import type { EntityManager } from '@mikro-orm/postgresql'

/** A stable code (docs/investigations.md lists them) and one line for people. */
export interface AdmissionNote {
  code: string
  message: string
}

/** Sets the notes of the issues not admitted, and removes those of the issues admitted. */
export async function writeAdmissionNotes(em: EntityManager, notes: ReadonlyMap<string, AdmissionNote>, admitted: readonly string[]): Promise<void> {
  // Arrays travel as one JSON text: the ORM's raw bindings would spread a JS array into a list.
  if (notes.size > 0) {
    const rows = [...notes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([issue, note]) => ({ issue, code: note.code, message: note.message }))
    await em.execute(
      `INSERT INTO issue_admission_notes (issue_id, code, message)
       SELECT (x->>'issue')::uuid, x->>'code', x->>'message' FROM jsonb_array_elements(?::jsonb) AS x
       ON CONFLICT (issue_id) DO UPDATE SET code = EXCLUDED.code, message = EXCLUDED.message, decided_at = now()
        WHERE (issue_admission_notes.code, issue_admission_notes.message) IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.message)`,
      [JSON.stringify(rows)],
    )
  }
  if (admitted.length > 0) await em.execute("DELETE FROM issue_admission_notes WHERE issue_id IN (SELECT jsonb_array_elements_text(?::jsonb)::uuid)", [JSON.stringify(admitted)])
}

/** The issue's note, if admission left one. */
export async function readAdmissionNote(em: EntityManager, issueId: string): Promise<(AdmissionNote & { decidedAt: string }) | undefined> {
  const rows = await em.execute<Array<{ code: string; message: string; decided_at: Date }>>('SELECT code, message, decided_at FROM issue_admission_notes WHERE issue_id = ?', [issueId])
  return rows[0] && { code: rows[0].code, message: rows[0].message, decidedAt: new Date(rows[0].decided_at).toISOString() }
}
