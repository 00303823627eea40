-- Session recordings (docs/recordings.md): the browser SDK records a session with rrweb and sends it
-- in numbered, gzipped chunks. The ingress keeps each chunk's bytes in the object store and puts its
-- metadata on stream:recordings; the recorder actor writes the rows below. A recording is the
-- client's id within one project; a chunk is stored once however often it is resent.
CREATE TABLE recordings (
  project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id             uuid NOT NULL,
  environment_id uuid REFERENCES environments (id) ON DELETE SET NULL,
  release        text,
  session_id     text NOT NULL,
  -- The grouper's user key (a hash of the project and the user's id, email or username), or NULL.
  user_key       text,
  -- What the user is shown as on the dashboard (the id, username or email the SDK sent), untrusted text.
  user_label     text,
  started_at     timestamptz NOT NULL,
  last_at        timestamptz NOT NULL,
  -- When the last chunk arrived: the recording closes 30 minutes after it.
  received_at    timestamptz NOT NULL,
  closed_at      timestamptz,
  -- Pages visited in order of first visit (paths with their query, at most 50).
  pages          text[] NOT NULL DEFAULT '{}',
  clicks         integer NOT NULL DEFAULT 0,
  errors         integer NOT NULL DEFAULT 0,
  chunks         integer NOT NULL DEFAULT 0,
  -- The highest chunk number seen: chunks < max_seq + 1 means chunks went missing.
  max_seq        integer NOT NULL DEFAULT 0,
  bytes          bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX recordings_project_last ON recordings (project_id, last_at DESC);
CREATE INDEX recordings_open ON recordings (received_at) WHERE closed_at IS NULL;
-- The retention sweep's scan for the oldest recordings across every project.
CREATE INDEX recordings_last ON recordings (last_at);
CREATE INDEX recordings_user ON recordings (project_id, user_key) WHERE user_key IS NOT NULL;

CREATE TABLE recording_chunks (
  project_id   uuid NOT NULL,
  recording_id uuid NOT NULL,
  seq          integer NOT NULL CHECK (seq >= 0),
  -- Where the gzipped chunk is in the object store.
  object_key   text NOT NULL,
  bytes        integer NOT NULL,
  raw_bytes    integer NOT NULL,
  first_at     timestamptz NOT NULL,
  last_at      timestamptz NOT NULL,
  received_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, recording_id, seq),
  FOREIGN KEY (project_id, recording_id) REFERENCES recordings (project_id, id) ON DELETE CASCADE
);
CREATE INDEX recording_chunks_object ON recording_chunks (object_key);

-- The error events sent while a recording ran (events.recording_id): an issue's sessions.
ALTER TABLE events ADD COLUMN recording_id uuid;
CREATE INDEX events_issue_recording ON events (issue_id, recording_id) WHERE recording_id IS NOT NULL;
