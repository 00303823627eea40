-- The tool server (services/web/mcp/, docs/mcp.md): coding agents read issues and act on them with
-- the project's api key.

-- An agent's "start fix" is not a person's approval: investigations and fixes it asks for carry the
-- trigger agent, and the delivery rules open only drafts for anything but manual.
ALTER TABLE investigations DROP CONSTRAINT investigations_trigger_check;
ALTER TABLE investigations ADD CONSTRAINT investigations_trigger_check CHECK (trigger IN ('auto', 'regression', 'manual', 'agent'));
ALTER TABLE fixes DROP CONSTRAINT fixes_trigger_check;
ALTER TABLE fixes ADD CONSTRAINT fixes_trigger_check CHECK (trigger IN ('auto', 'manual', 'agent'));

-- Pull requests an agent opened itself and recorded against an issue (link_pull_request); shown on
-- the issue page. The service never opened them, so nothing here is watched or updated: a record of
-- what the agent said, with the key it used.
CREATE TABLE issue_pull_requests (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id   uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  url        text NOT NULL CHECK (length(url) <= 2048),
  title      text NOT NULL DEFAULT '' CHECK (length(title) <= 300),
  -- The api key that recorded it (its id segment); kept when the key is revoked or deleted.
  key_id     text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issue_id, url)
);
CREATE INDEX issue_pull_requests_project ON issue_pull_requests (project_id);
