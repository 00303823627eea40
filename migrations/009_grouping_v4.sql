-- Fingerprint version 4 (docs/grouping.md): a throw site is keyed by its whole statement. Projects
-- that exist keep their version, so their issues keep their events; new projects start on 4.
-- `svc grouping-upgrade` moves a project.
ALTER TABLE projects ALTER COLUMN grouping_version SET DEFAULT 4;

-- The version the project grouped with before `svc grouping-upgrade` last moved it (NULL: never
-- moved). While it is set, the grouper also computes that version's fingerprint of each error, so a
-- bug that goes on happening lands in the open issue the old version gave it.
ALTER TABLE projects ADD COLUMN grouping_previous_version integer;

-- A fingerprint of a newer version that joined an issue an older version made (an alias of the
-- issue): written the first time such an event arrives, so the later ones go there directly. An
-- issue may have many; a fingerprint names one issue, here or in issues.
CREATE TABLE issue_fingerprint_aliases (
  project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  fingerprint      text NOT NULL,
  grouping_version integer NOT NULL,
  issue_id         uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, fingerprint)
);
CREATE INDEX issue_fingerprint_aliases_issue ON issue_fingerprint_aliases (issue_id);
