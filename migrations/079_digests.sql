-- The daily digest (docs/digest.md): one summary per project and local date, written, checked a
-- few minutes later, and delivered to the project's chat. The digester actor owns digests and
-- digest_items; on projects it owns digest_next_at, and it marks the chat broken when the chat
-- refuses the webhook (chat_broken_at, chat_error; connecting chat again clears them).

-- The next 09:00 in the project's time zone, as an instant. NULL: not scheduled yet (a new project,
-- or its time zone just changed); the digester's sweep schedules those. Due projects are found
-- through the index, never by reading every project.
ALTER TABLE projects
  ADD COLUMN digest_next_at timestamptz,
  ADD COLUMN chat_broken_at timestamptz,
  -- The chat plugin's redacted explanation: never the webhook URL.
  ADD COLUMN chat_error text NOT NULL DEFAULT '';
CREATE INDEX projects_digest_next_at ON projects (digest_next_at);

-- One digest run per project and local date: the unique key is what makes restarts, replicas and a
-- daylight-saving change unable to run a day twice. A leased job of the job runtime (shared/jobs/):
-- its step (write, then check, then deliver) is due at not_before, which is the digester's clock.
CREATE TABLE digests (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id        uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  local_date        date NOT NULL,
  timezone          text NOT NULL,
  due_at            timestamptz NOT NULL,
  state             text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'running', 'delivered', 'kept', 'empty', 'undelivered')),
  step              text NOT NULL DEFAULT 'write' CHECK (step IN ('write', 'check', 'deliver')),
  not_before        timestamptz NOT NULL,
  attempts          integer NOT NULL DEFAULT 0,
  -- NULL: not dispatched yet (the sweep dispatches it once not_before has passed).
  lease_until       timestamptz,
  started_at        timestamptz,
  version           integer NOT NULL DEFAULT 1,
  window_start      timestamptz,
  window_end        timestamptz,
  written_by        text NOT NULL DEFAULT '' CHECK (written_by IN ('', 'model', 'mechanical')),
  written_text      text NOT NULL DEFAULT '',
  -- The digester version that wrote the text; the check may run on another (spec Versioning 7).
  written_version   text NOT NULL DEFAULT '',
  write_attempts    integer NOT NULL DEFAULT 0,
  written_at        timestamptz,
  checked_at        timestamptz,
  -- The message composed by the check and sent as it is: immutable once set (trigger below).
  payload           text,
  delivery_attempts integer NOT NULL DEFAULT 0,
  delivered_at      timestamptz,
  error_code        text NOT NULL DEFAULT '',
  error             text NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, local_date)
);
CREATE INDEX digests_due ON digests (not_before) WHERE state = 'queued' AND lease_until IS NULL;
CREATE INDEX digests_lease ON digests (lease_until) WHERE state IN ('queued', 'running');

-- The frozen facts of each picked entry, written once with the text; only the check's verdict is
-- filled in later.
CREATE TABLE digest_items (
  digest_id     uuid NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
  position      integer NOT NULL CHECK (position >= 1),
  subject       text NOT NULL CHECK (subject IN ('issue', 'known_problem')),
  issue_id      uuid NOT NULL,
  ticket_id     uuid,
  title         text NOT NULL,
  outcome       text NOT NULL CHECK (outcome IN ('cause_found', 'outside_code', 'fix_draft', 'fix_ready')),
  users         integer NOT NULL CHECK (users >= 0),
  pr_url        text NOT NULL DEFAULT '',
  links         jsonb NOT NULL DEFAULT '[]',
  completed_at  timestamptz NOT NULL,
  mechanical    text NOT NULL,
  check_result  text NOT NULL DEFAULT '' CHECK (check_result IN ('', 'written', 'mechanical')),
  check_reason  text NOT NULL DEFAULT '',
  PRIMARY KEY (digest_id, position),
  UNIQUE (digest_id, issue_id)
);

-- What a run picks: investigations and fixes of a project that completed in its window.
CREATE INDEX investigations_project_finished ON investigations (project_id, finished_at) WHERE state IN ('investigated', 'insight');
CREATE INDEX fixes_project_finished ON fixes (project_id, finished_at) WHERE state IN ('pr_draft', 'pr_created');

-- A delivered payload is immutable: once composed it is never rewritten, once delivered the
-- delivery instant stays; the frozen facts of an item never change.
CREATE FUNCTION digests_keep_payload() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.payload IS NOT NULL AND NEW.payload IS DISTINCT FROM OLD.payload THEN
    RAISE EXCEPTION 'digest %: its payload is immutable once composed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.delivered_at IS NOT NULL AND NEW.delivered_at IS DISTINCT FROM OLD.delivered_at THEN
    RAISE EXCEPTION 'digest %: it was delivered already', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER digests_keep_payload BEFORE UPDATE ON digests FOR EACH ROW EXECUTE FUNCTION digests_keep_payload();

CREATE FUNCTION digest_items_keep_facts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.subject, NEW.issue_id, NEW.ticket_id, NEW.title, NEW.outcome, NEW.users, NEW.pr_url, NEW.links, NEW.completed_at, NEW.mechanical)
     IS DISTINCT FROM (OLD.subject, OLD.issue_id, OLD.ticket_id, OLD.title, OLD.outcome, OLD.users, OLD.pr_url, OLD.links, OLD.completed_at, OLD.mechanical) THEN
    RAISE EXCEPTION 'digest item %/%: its frozen facts are immutable', OLD.digest_id, OLD.position USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.check_result <> '' AND NEW.check_result IS DISTINCT FROM OLD.check_result THEN
    RAISE EXCEPTION 'digest item %/%: it was checked already', OLD.digest_id, OLD.position USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER digest_items_keep_facts BEFORE UPDATE ON digest_items FOR EACH ROW EXECUTE FUNCTION digest_items_keep_facts();
