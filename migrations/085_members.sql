-- Members and roles (docs/members.md): who may open a project and what they may change, the
-- single-use invitations that make someone a member, and the issue's assignee. Additive: new
-- tables, a nullable column, and the history's action check widened (NOT VALID: no scan).

-- Who may open a project: 'owner' (everything) or 'member' (reads, triages, assigns, starts
-- investigations and fixes). Written by the web side; projects.owner_id stays as the creator.
CREATE TABLE project_members (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Who invited them; NULL for the creator (and the backfill below).
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members (user_id);

INSERT INTO project_members (project_id, user_id, role, created_at)
  SELECT id, owner_id, 'owner', created_at FROM projects WHERE owner_id IS NOT NULL
  ON CONFLICT DO NOTHING;

-- Whatever creates a project (setup approval, the create page, seeds, tests) sets owner_id: the
-- trigger makes that person an owner, so no path can leave a project nobody may open.
CREATE FUNCTION project_owner_membership() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO project_members (project_id, user_id, role) VALUES (NEW.id, NEW.owner_id, 'owner')
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER projects_owner_membership AFTER INSERT OR UPDATE OF owner_id ON projects
  FOR EACH ROW WHEN (NEW.owner_id IS NOT NULL) EXECUTE FUNCTION project_owner_membership();

-- A single-use link /invitations/<token>: only the token's SHA-256 is stored, so the table alone
-- never lets anybody join. Pending while accepted_at and revoked_at are NULL and expires_at is ahead.
CREATE TABLE project_invitations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  role        text NOT NULL CHECK (role IN ('owner', 'member')),
  created_by  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at  timestamptz
);
CREATE INDEX project_invitations_project ON project_invitations (project_id, created_at DESC);

-- Who an issue is assigned to (the grouper writes it, services/grouper/commands/assign.ts).
ALTER TABLE issues ADD COLUMN assignee_id uuid REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX issues_assignee ON issues (project_id, assignee_id) WHERE assignee_id IS NOT NULL;

ALTER TABLE issue_history DROP CONSTRAINT issue_history_action_check;
ALTER TABLE issue_history ADD CONSTRAINT issue_history_action_check
  CHECK (action IN ('resolve', 'ignore', 'reopen', 'regress', 'unignore', 'merge', 'merged', 'unmerge', 'unmerged', 'pull_request', 'assign', 'unassign')) NOT VALID;
