-- Accounts (local and code-host sign-in), dashboard sign-in sessions, project ownership and the
-- project facts the setup session reports, and the agent setup sessions themselves.

CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email          text,
  -- scrypt, self-describing (scrypt$N$r$p$salt$hash); NULL for an account that signs in only
  -- through the code host.
  password_hash  text,
  codehost_id    text UNIQUE,
  codehost_login text,
  display_name   text NOT NULL DEFAULT '',
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (email IS NOT NULL OR codehost_id IS NOT NULL)
);
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE email IS NOT NULL;

-- A signed-in browser. The cookie carries a random token; only its SHA-256 is kept. The CSRF
-- token is per session and must come back with every state-changing form.
CREATE TABLE web_sessions (
  token_hash   bytea PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);

ALTER TABLE projects
  ADD COLUMN owner_id uuid REFERENCES users (id) ON DELETE SET NULL,
  -- Code host facts: the app installation the repository is reached through, and when the
  -- repository was attached (codehost_connected).
  ADD COLUMN codehost_installation_id text NOT NULL DEFAULT '',
  ADD COLUMN codehost_connected_at timestamptz,
  -- What the code host said about the attached repository the last time it was asked.
  ADD COLUMN codehost_repo_access text NOT NULL DEFAULT '',
  -- The chat incoming-webhook URL is a secret: read only to deliver, never logged or echoed.
  ADD COLUMN chat_webhook_url text NOT NULL DEFAULT '',
  ADD COLUMN chat_connected_at timestamptz;
CREATE INDEX projects_owner ON projects (owner_id);

-- One agent setup session. Only a SHA-256 of the poll token is stored. After approval the three
-- keys are sealed to a public key derived from the poll token, so only a holder of the token can
-- open them; the sealed copy is wiped once its collection window closes.
CREATE TABLE setup_sessions (
  id                text PRIMARY KEY,
  token_hash        bytea NOT NULL,
  seal_public_key   bytea NOT NULL,
  project_name      text NOT NULL,
  agent_name        text NOT NULL,
  git_remote        text NOT NULL DEFAULT '',
  status            text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'provisioned', 'key_ok', 'app_reporting', 'failed', 'expired')),
  message           text NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  approved_at       timestamptz,
  approved_by       uuid REFERENCES users (id) ON DELETE SET NULL,
  project_id        uuid REFERENCES projects (id) ON DELETE SET NULL,
  sealed_keys       bytea,
  keys_delivered_at timestamptz,
  completed_at      timestamptz
);
CREATE INDEX setup_sessions_project ON setup_sessions (project_id) WHERE project_id IS NOT NULL;

-- Progress the agent reported, one row per step; a step without a row is pending.
CREATE TABLE setup_steps (
  session_id text NOT NULL REFERENCES setup_sessions (id) ON DELETE CASCADE,
  step       text NOT NULL CHECK (step IN ('install_sdk', 'first_event', 'codehost', 'chat', 'sourcemaps', 'mcp', 'pull_request')),
  status     text NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed', 'skipped')),
  note       text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, step)
);

-- When a browser SDK first checked in with one of the project's ingest keys (app_reporting).
ALTER TABLE projects ADD COLUMN sdk_seen_at timestamptz;
