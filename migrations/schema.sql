CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
CREATE FUNCTION public.digest_items_keep_facts() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
CREATE FUNCTION public.digests_keep_payload() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF OLD.payload IS NOT NULL AND NEW.payload IS DISTINCT FROM OLD.payload THEN
    RAISE EXCEPTION 'digest %: its payload is immutable once composed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.delivered_at IS NOT NULL AND NEW.delivered_at IS DISTINCT FROM OLD.delivered_at THEN
    RAISE EXCEPTION 'digest %: it was delivered already', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION public.project_owner_membership() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO project_members (project_id, user_id, role) VALUES (NEW.id, NEW.owner_id, 'owner')
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TABLE public.alert_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    sends integer DEFAULT 0 NOT NULL,
    not_before timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    started_at timestamp with time zone,
    version integer DEFAULT 1 NOT NULL,
    message text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    first_sent_at timestamp with time zone,
    delivered_at timestamp with time zone,
    error text DEFAULT ''::text NOT NULL,
    CONSTRAINT alert_deliveries_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'sending'::text, 'delivered'::text, 'failed'::text, 'broken'::text])))
);
CREATE TABLE public.alert_firings (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    kind text NOT NULL,
    window_start timestamp with time zone NOT NULL,
    fired_at timestamp with time zone DEFAULT now() NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    delivery_id uuid,
    CONSTRAINT alert_firings_kind_check CHECK ((kind = ANY (ARRAY['new_issue'::text, 'regression'::text, 'spike'::text])))
);
CREATE TABLE public.alert_rules (
    project_id uuid NOT NULL,
    kind text NOT NULL,
    enabled boolean NOT NULL,
    spike_events integer DEFAULT 100 NOT NULL,
    spike_users integer DEFAULT 20 NOT NULL,
    spike_minutes integer DEFAULT 60 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT alert_rules_kind_check CHECK ((kind = ANY (ARRAY['new_issue'::text, 'regression'::text, 'spike'::text]))),
    CONSTRAINT alert_rules_spike_events_check CHECK (((spike_events >= 0) AND (spike_events <= 10000000))),
    CONSTRAINT alert_rules_spike_minutes_check CHECK (((spike_minutes >= 1) AND (spike_minutes <= 1440))),
    CONSTRAINT alert_rules_spike_users_check CHECK (((spike_users >= 0) AND (spike_users <= 10000000)))
);
CREATE TABLE public.api_keys (
    id text NOT NULL,
    project_id uuid NOT NULL,
    kind text NOT NULL,
    secret_hash bytea NOT NULL,
    label text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT api_keys_kind_check CHECK ((kind = ANY (ARRAY['ingest'::text, 'sourcemap'::text, 'api'::text])))
);
CREATE TABLE public.codehost_webhook_deliveries (
    delivery_id text NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    event text NOT NULL,
    action text DEFAULT ''::text NOT NULL,
    repo text DEFAULT ''::text NOT NULL,
    CONSTRAINT codehost_webhook_deliveries_delivery_id_check CHECK ((length(delivery_id) <= 100))
);
CREATE TABLE public.digest_items (
    digest_id uuid NOT NULL,
    "position" integer NOT NULL,
    subject text NOT NULL,
    issue_id uuid NOT NULL,
    ticket_id uuid,
    title text NOT NULL,
    outcome text NOT NULL,
    users integer NOT NULL,
    pr_url text DEFAULT ''::text NOT NULL,
    links jsonb DEFAULT '[]'::jsonb NOT NULL,
    completed_at timestamp with time zone NOT NULL,
    mechanical text NOT NULL,
    check_result text DEFAULT ''::text NOT NULL,
    check_reason text DEFAULT ''::text NOT NULL,
    CONSTRAINT digest_items_check_result_check CHECK ((check_result = ANY (ARRAY[''::text, 'written'::text, 'mechanical'::text]))),
    CONSTRAINT digest_items_position_check CHECK (("position" >= 1)),
    CONSTRAINT digest_items_subject_check CHECK ((subject = ANY (ARRAY['issue'::text, 'known_problem'::text]))),
    CONSTRAINT digest_items_users_check CHECK ((users >= 0))
);
CREATE TABLE public.digests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    local_date date NOT NULL,
    timezone text NOT NULL,
    due_at timestamp with time zone NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    step text DEFAULT 'write'::text NOT NULL,
    not_before timestamp with time zone NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone,
    started_at timestamp with time zone,
    version integer DEFAULT 1 NOT NULL,
    window_start timestamp with time zone,
    window_end timestamp with time zone,
    written_by text DEFAULT ''::text NOT NULL,
    written_text text DEFAULT ''::text NOT NULL,
    written_version text DEFAULT ''::text NOT NULL,
    write_attempts integer DEFAULT 0 NOT NULL,
    written_at timestamp with time zone,
    checked_at timestamp with time zone,
    payload text,
    delivery_attempts integer DEFAULT 0 NOT NULL,
    delivered_at timestamp with time zone,
    error_code text DEFAULT ''::text NOT NULL,
    error text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT digests_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'delivered'::text, 'kept'::text, 'empty'::text, 'undelivered'::text]))),
    CONSTRAINT digests_step_check CHECK ((step = ANY (ARRAY['write'::text, 'check'::text, 'deliver'::text]))),
    CONSTRAINT digests_written_by_check CHECK ((written_by = ANY (ARRAY[''::text, 'model'::text, 'mechanical'::text])))
);
CREATE TABLE public.environments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.event_receipts (
    id uuid NOT NULL,
    received_at timestamp with time zone NOT NULL
);
CREATE TABLE public.events (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    environment_id uuid,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    stored_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    release text,
    session_id text,
    user_key text,
    "grouping" json NOT NULL,
    payload json NOT NULL,
    recording_id uuid,
    merged_from uuid,
    whole boolean DEFAULT true NOT NULL
)
PARTITION BY RANGE (received_at);
ALTER TABLE ONLY public.events ALTER COLUMN "grouping" SET COMPRESSION lz4;
ALTER TABLE ONLY public.events ALTER COLUMN payload SET COMPRESSION lz4;
CREATE TABLE public.events_default (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    environment_id uuid,
    occurred_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    stored_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    release text,
    session_id text,
    user_key text,
    "grouping" json NOT NULL,
    payload json NOT NULL,
    recording_id uuid,
    merged_from uuid,
    whole boolean DEFAULT true NOT NULL
);
ALTER TABLE ONLY public.events_default ALTER COLUMN "grouping" SET COMPRESSION lz4;
ALTER TABLE ONLY public.events_default ALTER COLUMN payload SET COMPRESSION lz4;
CREATE TABLE public.fix_evidence (
    id bigint NOT NULL,
    fix_id uuid NOT NULL,
    attempt integer NOT NULL,
    seq integer NOT NULL,
    tier text NOT NULL,
    phase text NOT NULL,
    command text NOT NULL,
    exit_code integer,
    timed_out boolean DEFAULT false NOT NULL,
    output_capped boolean DEFAULT false NOT NULL,
    infra_error text DEFAULT ''::text NOT NULL,
    met boolean NOT NULL,
    excerpt text DEFAULT ''::text NOT NULL,
    duration_ms integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT fix_evidence_check CHECK ((NOT (met AND (infra_error <> ''::text)))),
    CONSTRAINT fix_evidence_phase_check CHECK ((phase = ANY (ARRAY['baseline'::text, 'fix'::text]))),
    CONSTRAINT fix_evidence_tier_check CHECK ((tier = ANY (ARRAY['setup'::text, 'E0'::text, 'E1'::text, 'E2'::text])))
);
CREATE SEQUENCE public.fix_evidence_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.fix_evidence_id_seq OWNED BY public.fix_evidence.id;
CREATE TABLE public.fixes (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    investigation_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    project_id uuid NOT NULL,
    trigger text NOT NULL,
    requested_by uuid,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone NOT NULL,
    repo text DEFAULT ''::text NOT NULL,
    base_sha text DEFAULT ''::text NOT NULL,
    branch text DEFAULT ''::text NOT NULL,
    test_file text DEFAULT ''::text NOT NULL,
    summary text DEFAULT ''::text NOT NULL,
    diff text DEFAULT ''::text NOT NULL,
    review text DEFAULT ''::text NOT NULL,
    review_reason text DEFAULT ''::text NOT NULL,
    delivery text DEFAULT ''::text NOT NULL,
    pr_number integer,
    pr_url text DEFAULT ''::text NOT NULL,
    head_sha text DEFAULT ''::text NOT NULL,
    ci_state text DEFAULT ''::text NOT NULL,
    ci_checked_at timestamp with time zone,
    reason_code text DEFAULT ''::text NOT NULL,
    reason_message text DEFAULT ''::text NOT NULL,
    remediation text DEFAULT ''::text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    turns integer DEFAULT 0 NOT NULL,
    input_tokens bigint DEFAULT 0 NOT NULL,
    output_tokens bigint DEFAULT 0 NOT NULL,
    duration_ms integer DEFAULT 0 NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    pr_ready boolean DEFAULT false NOT NULL,
    pr_state text DEFAULT ''::text NOT NULL,
    pr_merged_at timestamp with time zone,
    pr_closed_at timestamp with time zone,
    pr_merge_sha text DEFAULT ''::text NOT NULL,
    pr_checked_at timestamp with time zone,
    held_state text DEFAULT ''::text NOT NULL,
    held_release text,
    held_sessions integer,
    held_events bigint,
    held_checked_at timestamp with time zone,
    CONSTRAINT fixes_check CHECK (((state = 'needs_human'::text) = (reason_code <> ''::text))),
    CONSTRAINT fixes_check2 CHECK (((state <> 'pr_created'::text) OR (delivery = 'ready'::text))),
    CONSTRAINT fixes_delivery_check CHECK ((delivery = ANY (ARRAY[''::text, 'draft'::text, 'limited_draft'::text, 'ready'::text]))),
    CONSTRAINT fixes_held_state_check CHECK ((held_state = ANY (ARRAY[''::text, 'waiting'::text, 'held'::text, 'came_back'::text]))),
    CONSTRAINT fixes_pr_state_check CHECK ((pr_state = ANY (ARRAY[''::text, 'open'::text, 'merged'::text, 'closed'::text]))),
    CONSTRAINT fixes_review_check CHECK ((review = ANY (ARRAY[''::text, 'approved'::text, 'vetoed'::text]))),
    CONSTRAINT fixes_trigger_check CHECK ((trigger = ANY (ARRAY['auto'::text, 'manual'::text, 'agent'::text])))
);
CREATE TABLE public.friction_findings (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    environment_id uuid,
    recording_id uuid NOT NULL,
    kind text NOT NULL,
    page text NOT NULL,
    target text NOT NULL,
    at timestamp with time zone NOT NULL,
    user_key text,
    session_id text,
    narrative text NOT NULL,
    narrative_by text DEFAULT 'mechanical'::text NOT NULL,
    embedding public.vector(384),
    embedding_model text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    screen text DEFAULT ''::text NOT NULL,
    control_names text[] DEFAULT '{}'::text[] NOT NULL,
    subject text DEFAULT ''::text NOT NULL,
    embedding_of text,
    CONSTRAINT friction_findings_embedding_of_check CHECK ((embedding_of = ANY (ARRAY['narrative'::text, 'subject'::text]))),
    CONSTRAINT friction_findings_kind_check CHECK ((kind = ANY (ARRAY['rage_click'::text, 'dead_click'::text, 'error_after_click'::text, 'form_abandon'::text]))),
    CONSTRAINT friction_findings_narrative_by_check CHECK ((narrative_by = ANY (ARRAY['mechanical'::text, 'model'::text])))
);
CREATE TABLE public.friction_jobs (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    kind text NOT NULL,
    project_id uuid NOT NULL,
    environment_id uuid,
    subject uuid NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    source text DEFAULT 'live'::text NOT NULL,
    allow_missing_embeddings boolean DEFAULT false NOT NULL,
    not_before timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone,
    started_at timestamp with time zone,
    version integer DEFAULT 1 NOT NULL,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT friction_jobs_kind_check CHECK ((kind = ANY (ARRAY['scan'::text, 'match'::text, 'confirm'::text]))),
    CONSTRAINT friction_jobs_source_check CHECK ((source = ANY (ARRAY['live'::text, 'backfill'::text]))),
    CONSTRAINT friction_jobs_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'claimed'::text, 'completed'::text, 'failed'::text])))
);
CREATE TABLE public.friction_scans (
    project_id uuid NOT NULL,
    recording_id uuid NOT NULL,
    scanned_at timestamp with time zone DEFAULT now() NOT NULL,
    findings integer DEFAULT 0 NOT NULL
);
CREATE TABLE public.investigation_citations (
    id bigint NOT NULL,
    investigation_id uuid NOT NULL,
    path text NOT NULL,
    line_start integer NOT NULL,
    line_end integer NOT NULL,
    quote text NOT NULL
);
CREATE SEQUENCE public.investigation_citations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.investigation_citations_id_seq OWNED BY public.investigation_citations.id;
CREATE TABLE public.investigation_outcomes (
    investigation_id uuid NOT NULL,
    kind text NOT NULL,
    reason_code text DEFAULT ''::text NOT NULL,
    reason_message text DEFAULT ''::text NOT NULL,
    remediation text DEFAULT ''::text NOT NULL,
    summary text DEFAULT ''::text NOT NULL,
    chain jsonb DEFAULT '[]'::jsonb NOT NULL,
    fix text DEFAULT ''::text NOT NULL,
    cause jsonb,
    confidence real,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT investigation_outcomes_check CHECK (((kind = 'needs_human'::text) = (reason_code <> ''::text))),
    CONSTRAINT investigation_outcomes_kind_check CHECK ((kind = ANY (ARRAY['investigated'::text, 'insight'::text, 'needs_human'::text])))
);
CREATE TABLE public.investigation_steps (
    id bigint NOT NULL,
    investigation_id uuid NOT NULL,
    attempt integer NOT NULL,
    seq integer NOT NULL,
    kind text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    detail text DEFAULT ''::text NOT NULL,
    input_tokens integer DEFAULT 0 NOT NULL,
    output_tokens integer DEFAULT 0 NOT NULL,
    duration_ms integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT investigation_steps_kind_check CHECK ((kind = ANY (ARRAY['model'::text, 'tool'::text, 'check'::text])))
);
CREATE SEQUENCE public.investigation_steps_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.investigation_steps_id_seq OWNED BY public.investigation_steps.id;
CREATE TABLE public.investigations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    issue_id uuid NOT NULL,
    project_id uuid NOT NULL,
    episode integer NOT NULL,
    trigger text NOT NULL,
    requested_by uuid,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone NOT NULL,
    release text,
    repo text DEFAULT ''::text NOT NULL,
    repo_url text DEFAULT ''::text NOT NULL,
    commit_sha text DEFAULT ''::text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    turns integer DEFAULT 0 NOT NULL,
    input_tokens bigint DEFAULT 0 NOT NULL,
    output_tokens bigint DEFAULT 0 NOT NULL,
    duration_ms integer DEFAULT 0 NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT investigations_episode_check CHECK ((episode >= 1)),
    CONSTRAINT investigations_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'analyzing'::text, 'investigated'::text, 'insight'::text, 'needs_human'::text]))),
    CONSTRAINT investigations_trigger_check CHECK ((trigger = ANY (ARRAY['auto'::text, 'regression'::text, 'manual'::text, 'agent'::text])))
);
CREATE TABLE public.issue_actors (
    issue_id uuid NOT NULL,
    actor_kind character(1) NOT NULL,
    actor text NOT NULL,
    first_seen timestamp with time zone NOT NULL,
    last_seen timestamp with time zone NOT NULL,
    real_seen_at timestamp with time zone,
    seen_kinds smallint DEFAULT 0 NOT NULL,
    CONSTRAINT issue_actors_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['u'::bpchar, 's'::bpchar])))
);
CREATE TABLE public.issue_admission_notes (
    issue_id uuid NOT NULL,
    code text NOT NULL,
    message text NOT NULL,
    decided_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.issue_environments (
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    environment_id uuid NOT NULL,
    first_seen timestamp with time zone NOT NULL
);
CREATE TABLE public.issue_fingerprint_aliases (
    project_id uuid NOT NULL,
    fingerprint text NOT NULL,
    grouping_version integer NOT NULL,
    issue_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.issue_history (
    id bigint NOT NULL,
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor_kind text NOT NULL,
    actor_id text DEFAULT ''::text NOT NULL,
    actor_label text DEFAULT ''::text NOT NULL,
    action text NOT NULL,
    from_state text DEFAULT ''::text NOT NULL,
    to_state text DEFAULT ''::text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT issue_history_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['person'::text, 'agent'::text, 'service'::text]))),
    CONSTRAINT issue_history_reason_check CHECK ((length(reason) <= 1000))
);
ALTER TABLE public.issue_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.issue_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE public.issue_pull_requests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    url text NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    key_id text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    pr_state text DEFAULT ''::text NOT NULL,
    pr_checked_at timestamp with time zone,
    pr_ended_at timestamp with time zone,
    CONSTRAINT issue_pull_requests_title_check CHECK ((length(title) <= 300)),
    CONSTRAINT issue_pull_requests_url_check CHECK ((length(url) <= 2048))
);
CREATE TABLE public.issue_recordings (
    issue_id uuid NOT NULL,
    project_id uuid NOT NULL,
    recording_id uuid NOT NULL,
    at timestamp with time zone NOT NULL
);
CREATE TABLE public.issue_releases (
    project_id uuid NOT NULL,
    issue_id uuid NOT NULL,
    release text NOT NULL,
    first_seen timestamp with time zone NOT NULL
);
CREATE TABLE public.issues (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    kind text DEFAULT 'error'::text NOT NULL,
    fingerprint text NOT NULL,
    grouping_version integer NOT NULL,
    status text DEFAULT 'new'::text NOT NULL,
    reason_code text DEFAULT ''::text NOT NULL,
    reason_message text DEFAULT ''::text NOT NULL,
    title text NOT NULL,
    culprit text DEFAULT ''::text NOT NULL,
    first_seen timestamp with time zone NOT NULL,
    last_seen timestamp with time zone NOT NULL,
    event_count bigint DEFAULT 0 NOT NULL,
    user_count integer DEFAULT 0 NOT NULL,
    session_count integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    noise text DEFAULT ''::text NOT NULL,
    detail_quality smallint DEFAULT 0 NOT NULL,
    previous_status text,
    triage text DEFAULT 'open'::text NOT NULL,
    resolved_at timestamp with time zone,
    resolved_mode text DEFAULT ''::text NOT NULL,
    resolved_release text,
    ignored_until timestamp with time zone,
    ignored_until_events bigint,
    ignored_until_users integer,
    regressed_at timestamp with time zone,
    regressed_release text,
    merged_into uuid,
    assignee_id uuid,
    sample_window_start timestamp with time zone,
    sample_window_events integer DEFAULT 0 NOT NULL
);
CREATE TABLE public.matching_decisions (
    finding_id uuid NOT NULL,
    project_id uuid NOT NULL,
    environment_id uuid,
    decision text NOT NULL,
    ticket_id uuid,
    distance real,
    shortlist jsonb DEFAULT '[]'::jsonb NOT NULL,
    decided_by text NOT NULL,
    decided_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT matching_decisions_decided_by_check CHECK ((decided_by = ANY (ARRAY['embeddings'::text, 'no_embeddings'::text, 'model'::text]))),
    CONSTRAINT matching_decisions_decision_check CHECK ((decision = ANY (ARRAY['joined'::text, 'created'::text, 'not_a_problem'::text])))
);
CREATE TABLE public.project_invitations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    token_hash bytea NOT NULL,
    role text NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    accepted_at timestamp with time zone,
    accepted_by uuid,
    revoked_at timestamp with time zone,
    CONSTRAINT project_invitations_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'member'::text])))
);
CREATE TABLE public.project_members (
    project_id uuid NOT NULL,
    user_id uuid NOT NULL,
    role text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    invited_by uuid,
    CONSTRAINT project_members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'member'::text])))
);
CREATE TABLE public.projects (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    codehost_repo text DEFAULT ''::text NOT NULL,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sourcemaps_uploaded_at timestamp with time zone,
    owner_id uuid,
    codehost_installation_id text DEFAULT ''::text NOT NULL,
    codehost_connected_at timestamp with time zone,
    codehost_repo_access text DEFAULT ''::text NOT NULL,
    chat_webhook_url text DEFAULT ''::text NOT NULL,
    chat_connected_at timestamp with time zone,
    sdk_seen_at timestamp with time zone,
    grouping_version integer DEFAULT 4 NOT NULL,
    fix_limited_drafts boolean DEFAULT false NOT NULL,
    grouping_previous_version integer,
    friction_auto_investigate boolean DEFAULT false NOT NULL,
    digest_next_at timestamp with time zone,
    chat_broken_at timestamp with time zone,
    chat_error text DEFAULT ''::text NOT NULL,
    retention_days integer,
    events_per_minute integer,
    dsn_number bigint NOT NULL,
    CONSTRAINT projects_events_per_minute_check CHECK (((events_per_minute >= 0) AND (events_per_minute <= 100000000))),
    CONSTRAINT projects_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200))),
    CONSTRAINT projects_retention_days_check CHECK (((retention_days >= 1) AND (retention_days <= 3650)))
);
ALTER TABLE public.projects ALTER COLUMN dsn_number ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.projects_dsn_number_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE public.recording_chunks (
    project_id uuid NOT NULL,
    recording_id uuid NOT NULL,
    seq integer NOT NULL,
    object_key text NOT NULL,
    bytes integer NOT NULL,
    raw_bytes integer NOT NULL,
    first_at timestamp with time zone NOT NULL,
    last_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    CONSTRAINT recording_chunks_seq_check CHECK ((seq >= 0))
);
CREATE TABLE public.recordings (
    project_id uuid NOT NULL,
    id uuid NOT NULL,
    environment_id uuid,
    release text,
    session_id text NOT NULL,
    user_key text,
    user_label text,
    started_at timestamp with time zone NOT NULL,
    last_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    closed_at timestamp with time zone,
    pages text[] DEFAULT '{}'::text[] NOT NULL,
    clicks integer DEFAULT 0 NOT NULL,
    errors integer DEFAULT 0 NOT NULL,
    chunks integer DEFAULT 0 NOT NULL,
    max_seq integer DEFAULT 0 NOT NULL,
    bytes bigint DEFAULT 0 NOT NULL
);
CREATE TABLE public.releases (
    project_id uuid NOT NULL,
    name text NOT NULL,
    first_seen timestamp with time zone NOT NULL
);
CREATE TABLE public.setup_sessions (
    id text NOT NULL,
    token_hash bytea NOT NULL,
    seal_public_key bytea NOT NULL,
    project_name text NOT NULL,
    agent_name text NOT NULL,
    git_remote text DEFAULT ''::text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    message text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    approved_at timestamp with time zone,
    approved_by uuid,
    project_id uuid,
    sealed_keys bytea,
    keys_delivered_at timestamp with time zone,
    completed_at timestamp with time zone,
    CONSTRAINT setup_sessions_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'provisioned'::text, 'key_ok'::text, 'app_reporting'::text, 'failed'::text, 'expired'::text])))
);
CREATE TABLE public.setup_steps (
    session_id text NOT NULL,
    step text NOT NULL,
    status text NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT setup_steps_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text, 'done'::text, 'failed'::text, 'skipped'::text]))),
    CONSTRAINT setup_steps_step_check CHECK ((step = ANY (ARRAY['install_sdk'::text, 'first_event'::text, 'codehost'::text, 'chat'::text, 'sourcemaps'::text, 'mcp'::text, 'pull_request'::text])))
);
CREATE TABLE public.sourcemaps (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    release text DEFAULT ''::text NOT NULL,
    url_path text NOT NULL,
    debug_id uuid,
    object_key text NOT NULL,
    bytes integer NOT NULL,
    uploaded_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.ticket_checks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    ticket_id uuid NOT NULL,
    project_id uuid NOT NULL,
    recording_id uuid NOT NULL,
    verdict text NOT NULL,
    checked_at timestamp with time zone DEFAULT now() NOT NULL,
    utc_day date NOT NULL,
    CONSTRAINT ticket_checks_verdict_check CHECK ((verdict = ANY (ARRAY['confirmed'::text, 'refuted'::text, 'inconclusive'::text])))
);
CREATE TABLE public.ticket_matches (
    ticket_id uuid NOT NULL,
    finding_id uuid NOT NULL,
    project_id uuid NOT NULL,
    recording_id uuid NOT NULL,
    at timestamp with time zone NOT NULL,
    user_key text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.tickets (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    environment_id uuid,
    issue_id uuid NOT NULL,
    state text DEFAULT 'candidate'::text NOT NULL,
    previous_state text,
    kind text NOT NULL,
    page text NOT NULL,
    target text NOT NULL,
    narrative text NOT NULL,
    embedding public.vector(384),
    embedding_model text,
    pages text[] DEFAULT '{}'::text[] NOT NULL,
    matched integer DEFAULT 0 NOT NULL,
    users integer DEFAULT 0 NOT NULL,
    checks_confirmed integer DEFAULT 0 NOT NULL,
    checks_refuted integer DEFAULT 0 NOT NULL,
    checks_inconclusive integer DEFAULT 0 NOT NULL,
    checks_next_at integer DEFAULT 3 NOT NULL,
    published_at timestamp with time zone,
    unpublished_at timestamp with time zone,
    same_fix_ticket_id uuid,
    same_fix text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    screen text DEFAULT ''::text NOT NULL,
    control_names text[] DEFAULT '{}'::text[] NOT NULL,
    subject text DEFAULT ''::text NOT NULL,
    embedding_of text,
    CONSTRAINT tickets_embedding_of_check CHECK ((embedding_of = ANY (ARRAY['narrative'::text, 'subject'::text]))),
    CONSTRAINT tickets_same_fix_check CHECK ((same_fix = ANY (ARRAY['asked'::text, 'same'::text, 'different'::text]))),
    CONSTRAINT tickets_state_check CHECK ((state = ANY (ARRAY['candidate'::text, 'queued'::text, 'analyzing'::text, 'awaiting_approval'::text, 'insight'::text, 'needs_human'::text, 'investigated'::text, 'fixing'::text, 'pr_draft'::text, 'pr_created'::text, 'archived'::text])))
);
CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text,
    password_hash text,
    codehost_id text,
    codehost_login text,
    display_name text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_check CHECK (((email IS NOT NULL) OR (codehost_id IS NOT NULL)))
);
CREATE TABLE public.web_sessions (
    token_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    csrf_token text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY public.events ATTACH PARTITION public.events_default DEFAULT;
ALTER TABLE ONLY public.fix_evidence ALTER COLUMN id SET DEFAULT nextval('public.fix_evidence_id_seq'::regclass);
ALTER TABLE ONLY public.investigation_citations ALTER COLUMN id SET DEFAULT nextval('public.investigation_citations_id_seq'::regclass);
ALTER TABLE ONLY public.investigation_steps ALTER COLUMN id SET DEFAULT nextval('public.investigation_steps_id_seq'::regclass);
ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.alert_firings
    ADD CONSTRAINT alert_firings_issue_id_kind_window_start_key UNIQUE (issue_id, kind, window_start);
ALTER TABLE ONLY public.alert_firings
    ADD CONSTRAINT alert_firings_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_pkey PRIMARY KEY (project_id, kind);
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.codehost_webhook_deliveries
    ADD CONSTRAINT codehost_webhook_deliveries_pkey PRIMARY KEY (delivery_id);
ALTER TABLE ONLY public.digest_items
    ADD CONSTRAINT digest_items_digest_id_issue_id_key UNIQUE (digest_id, issue_id);
ALTER TABLE public.digest_items
    ADD CONSTRAINT digest_items_outcome_check CHECK ((outcome = ANY (ARRAY['cause_found'::text, 'outside_code'::text, 'fix_draft'::text, 'fix_ready'::text, 'fix_held'::text, 'fix_came_back'::text]))) NOT VALID;
ALTER TABLE ONLY public.digest_items
    ADD CONSTRAINT digest_items_pkey PRIMARY KEY (digest_id, "position");
ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_project_id_local_date_key UNIQUE (project_id, local_date);
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_project_id_name_key UNIQUE (project_id, name);
ALTER TABLE ONLY public.event_receipts
    ADD CONSTRAINT event_receipts_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id, received_at);
ALTER TABLE ONLY public.events_default
    ADD CONSTRAINT events_default_pkey PRIMARY KEY (id, received_at);
ALTER TABLE ONLY public.fix_evidence
    ADD CONSTRAINT fix_evidence_fix_id_attempt_seq_key UNIQUE (fix_id, attempt, seq);
ALTER TABLE ONLY public.fix_evidence
    ADD CONSTRAINT fix_evidence_pkey PRIMARY KEY (id);
ALTER TABLE public.fixes
    ADD CONSTRAINT fixes_check1 CHECK (((state = ANY (ARRAY['pr_draft'::text, 'pr_created'::text, 'merged'::text, 'closed'::text])) = ((pr_number IS NOT NULL) AND (delivery <> ''::text)))) NOT VALID;
ALTER TABLE ONLY public.fixes
    ADD CONSTRAINT fixes_pkey PRIMARY KEY (id);
ALTER TABLE public.fixes
    ADD CONSTRAINT fixes_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'fixing'::text, 'pr_draft'::text, 'pr_created'::text, 'needs_human'::text, 'merged'::text, 'closed'::text]))) NOT VALID;
ALTER TABLE ONLY public.friction_findings
    ADD CONSTRAINT friction_findings_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.friction_findings
    ADD CONSTRAINT friction_findings_project_id_recording_id_kind_target_at_key UNIQUE (project_id, recording_id, kind, target, at);
ALTER TABLE ONLY public.friction_jobs
    ADD CONSTRAINT friction_jobs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.friction_scans
    ADD CONSTRAINT friction_scans_pkey PRIMARY KEY (project_id, recording_id);
ALTER TABLE ONLY public.investigation_citations
    ADD CONSTRAINT investigation_citations_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.investigation_outcomes
    ADD CONSTRAINT investigation_outcomes_pkey PRIMARY KEY (investigation_id);
ALTER TABLE ONLY public.investigation_steps
    ADD CONSTRAINT investigation_steps_investigation_id_attempt_seq_key UNIQUE (investigation_id, attempt, seq);
ALTER TABLE ONLY public.investigation_steps
    ADD CONSTRAINT investigation_steps_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.investigations
    ADD CONSTRAINT investigations_issue_id_episode_key UNIQUE (issue_id, episode);
ALTER TABLE ONLY public.investigations
    ADD CONSTRAINT investigations_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.issue_actors
    ADD CONSTRAINT issue_actors_pkey PRIMARY KEY (issue_id, actor_kind, actor);
ALTER TABLE ONLY public.issue_admission_notes
    ADD CONSTRAINT issue_admission_notes_pkey PRIMARY KEY (issue_id);
ALTER TABLE ONLY public.issue_environments
    ADD CONSTRAINT issue_environments_pkey PRIMARY KEY (issue_id, environment_id);
ALTER TABLE ONLY public.issue_fingerprint_aliases
    ADD CONSTRAINT issue_fingerprint_aliases_pkey PRIMARY KEY (project_id, fingerprint);
ALTER TABLE public.issue_history
    ADD CONSTRAINT issue_history_action_check CHECK ((action = ANY (ARRAY['resolve'::text, 'ignore'::text, 'reopen'::text, 'regress'::text, 'unignore'::text, 'merge'::text, 'merged'::text, 'unmerge'::text, 'unmerged'::text, 'pull_request'::text, 'assign'::text, 'unassign'::text]))) NOT VALID;
ALTER TABLE ONLY public.issue_history
    ADD CONSTRAINT issue_history_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.issue_pull_requests
    ADD CONSTRAINT issue_pull_requests_issue_id_url_key UNIQUE (issue_id, url);
ALTER TABLE ONLY public.issue_pull_requests
    ADD CONSTRAINT issue_pull_requests_pkey PRIMARY KEY (id);
ALTER TABLE public.issue_pull_requests
    ADD CONSTRAINT issue_pull_requests_pr_state_check CHECK ((pr_state = ANY (ARRAY[''::text, 'open'::text, 'merged'::text, 'closed'::text, 'unfollowed'::text]))) NOT VALID;
ALTER TABLE ONLY public.issue_recordings
    ADD CONSTRAINT issue_recordings_pkey PRIMARY KEY (issue_id, recording_id, at);
ALTER TABLE ONLY public.issue_releases
    ADD CONSTRAINT issue_releases_pkey PRIMARY KEY (issue_id, release);
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_project_id_kind_fingerprint_key UNIQUE (project_id, kind, fingerprint);
ALTER TABLE public.issues
    ADD CONSTRAINT issues_resolved_mode_check CHECK ((resolved_mode = ANY (ARRAY[''::text, 'now'::text, 'next_release'::text]))) NOT VALID;
ALTER TABLE public.issues
    ADD CONSTRAINT issues_triage_check CHECK ((triage = ANY (ARRAY['open'::text, 'resolved'::text, 'ignored'::text]))) NOT VALID;
ALTER TABLE ONLY public.matching_decisions
    ADD CONSTRAINT matching_decisions_pkey PRIMARY KEY (finding_id);
ALTER TABLE ONLY public.project_invitations
    ADD CONSTRAINT project_invitations_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.project_invitations
    ADD CONSTRAINT project_invitations_token_hash_key UNIQUE (token_hash);
ALTER TABLE ONLY public.project_members
    ADD CONSTRAINT project_members_pkey PRIMARY KEY (project_id, user_id);
ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_dsn_number_key UNIQUE (dsn_number);
ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.recording_chunks
    ADD CONSTRAINT recording_chunks_pkey PRIMARY KEY (project_id, recording_id, seq);
ALTER TABLE ONLY public.recordings
    ADD CONSTRAINT recordings_pkey PRIMARY KEY (project_id, id);
ALTER TABLE ONLY public.releases
    ADD CONSTRAINT releases_pkey PRIMARY KEY (project_id, name);
ALTER TABLE ONLY public.setup_sessions
    ADD CONSTRAINT setup_sessions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.setup_steps
    ADD CONSTRAINT setup_steps_pkey PRIMARY KEY (session_id, step);
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_project_id_release_url_path_key UNIQUE (project_id, release, url_path);
ALTER TABLE ONLY public.ticket_checks
    ADD CONSTRAINT ticket_checks_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.ticket_checks
    ADD CONSTRAINT ticket_checks_ticket_id_recording_id_key UNIQUE (ticket_id, recording_id);
ALTER TABLE ONLY public.ticket_matches
    ADD CONSTRAINT ticket_matches_pkey PRIMARY KEY (ticket_id, finding_id);
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_issue_id_key UNIQUE (issue_id);
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_codehost_id_key UNIQUE (codehost_id);
ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_pkey PRIMARY KEY (token_hash);
CREATE INDEX alert_deliveries_due ON public.alert_deliveries USING btree (not_before) WHERE ((state = 'pending'::text) AND (lease_until IS NULL));
CREATE INDEX alert_deliveries_gathering ON public.alert_deliveries USING btree (project_id) WHERE ((state = 'pending'::text) AND (message IS NULL));
CREATE INDEX alert_deliveries_lease ON public.alert_deliveries USING btree (lease_until) WHERE (state = ANY (ARRAY['pending'::text, 'sending'::text]));
CREATE INDEX alert_firings_delivery ON public.alert_firings USING btree (delivery_id) WHERE (delivery_id IS NOT NULL);
CREATE INDEX alert_firings_project ON public.alert_firings USING btree (project_id, fired_at DESC);
CREATE INDEX alert_firings_recent ON public.alert_firings USING btree (issue_id, kind, window_start DESC);
CREATE INDEX api_keys_project ON public.api_keys USING btree (project_id);
CREATE INDEX codehost_webhook_deliveries_received ON public.codehost_webhook_deliveries USING btree (received_at);
CREATE INDEX digests_due ON public.digests USING btree (not_before) WHERE ((state = 'queued'::text) AND (lease_until IS NULL));
CREATE INDEX digests_lease ON public.digests USING btree (lease_until) WHERE (state = ANY (ARRAY['queued'::text, 'running'::text]));
CREATE INDEX event_receipts_received ON public.event_receipts USING btree (received_at);
CREATE INDEX events_issue_received ON ONLY public.events USING btree (issue_id, received_at DESC);
CREATE INDEX events_default_issue_id_received_at_idx ON public.events_default USING btree (issue_id, received_at DESC);
CREATE INDEX events_issue_recording ON ONLY public.events USING btree (issue_id, recording_id) WHERE (recording_id IS NOT NULL);
CREATE INDEX events_default_issue_id_recording_id_idx ON public.events_default USING btree (issue_id, recording_id) WHERE (recording_id IS NOT NULL);
CREATE INDEX events_project_received ON ONLY public.events USING btree (project_id, received_at DESC);
CREATE INDEX events_default_project_id_received_at_idx ON public.events_default USING btree (project_id, received_at DESC);
CREATE INDEX fixes_held_due ON public.fixes USING btree (held_checked_at NULLS FIRST, pr_merged_at) WHERE ((pr_state = 'merged'::text) AND (held_state = ANY (ARRAY[''::text, 'waiting'::text])));
CREATE INDEX fixes_issue ON public.fixes USING btree (issue_id, created_at);
CREATE INDEX fixes_lease ON public.fixes USING btree (lease_until) WHERE (state = ANY (ARRAY['queued'::text, 'fixing'::text]));
CREATE UNIQUE INDEX fixes_one_active ON public.fixes USING btree (issue_id) WHERE (state = ANY (ARRAY['queued'::text, 'fixing'::text]));
CREATE INDEX fixes_pr_follow ON public.fixes USING btree (pr_checked_at NULLS FIRST, created_at) WHERE (state = ANY (ARRAY['pr_draft'::text, 'pr_created'::text]));
CREATE INDEX fixes_pr_number ON public.fixes USING btree (pr_number) WHERE (pr_number IS NOT NULL);
CREATE INDEX fixes_project_finished ON public.fixes USING btree (project_id, finished_at) WHERE (state = ANY (ARRAY['pr_draft'::text, 'pr_created'::text]));
CREATE INDEX fixes_project_finished_ended ON public.fixes USING btree (project_id, finished_at) WHERE (state = ANY (ARRAY['merged'::text, 'closed'::text]));
CREATE INDEX fixes_project_held ON public.fixes USING btree (project_id, held_checked_at) WHERE (held_state = ANY (ARRAY['held'::text, 'came_back'::text]));
CREATE INDEX friction_findings_environment ON public.friction_findings USING btree (project_id, environment_id, created_at);
CREATE UNIQUE INDEX friction_jobs_active ON public.friction_jobs USING btree (kind, subject) WHERE (state = ANY (ARRAY['pending'::text, 'claimed'::text]));
CREATE INDEX friction_jobs_due ON public.friction_jobs USING btree (not_before) WHERE (state = 'pending'::text);
CREATE INDEX friction_jobs_environment ON public.friction_jobs USING btree (project_id, environment_id, state);
CREATE INDEX investigation_citations_investigation ON public.investigation_citations USING btree (investigation_id);
CREATE INDEX investigations_lease ON public.investigations USING btree (lease_until) WHERE (state = ANY (ARRAY['queued'::text, 'analyzing'::text]));
CREATE UNIQUE INDEX investigations_one_active ON public.investigations USING btree (issue_id) WHERE (state = ANY (ARRAY['queued'::text, 'analyzing'::text]));
CREATE INDEX investigations_project_created ON public.investigations USING btree (project_id, created_at);
CREATE INDEX investigations_project_finished ON public.investigations USING btree (project_id, finished_at) WHERE (state = ANY (ARRAY['investigated'::text, 'insight'::text]));
CREATE INDEX issue_actors_actor ON public.issue_actors USING btree (actor, actor_kind);
CREATE INDEX issue_actors_real ON public.issue_actors USING btree (issue_id, actor_kind, real_seen_at);
CREATE INDEX issue_environments_project_environment ON public.issue_environments USING btree (project_id, environment_id);
CREATE INDEX issue_fingerprint_aliases_issue ON public.issue_fingerprint_aliases USING btree (issue_id);
CREATE INDEX issue_history_issue ON public.issue_history USING btree (issue_id, at DESC);
CREATE INDEX issue_pull_requests_follow ON public.issue_pull_requests USING btree (pr_checked_at NULLS FIRST) WHERE (pr_state = ANY (ARRAY[''::text, 'open'::text]));
CREATE INDEX issue_pull_requests_project ON public.issue_pull_requests USING btree (project_id);
CREATE INDEX issue_releases_project_release ON public.issue_releases USING btree (project_id, release);
CREATE INDEX issues_assignee ON public.issues USING btree (project_id, assignee_id) WHERE (assignee_id IS NOT NULL);
CREATE INDEX issues_merged_into ON public.issues USING btree (merged_into) WHERE (merged_into IS NOT NULL);
CREATE INDEX issues_project_event_count ON public.issues USING btree (project_id, event_count DESC);
CREATE INDEX issues_project_first_seen ON public.issues USING btree (project_id, first_seen DESC);
CREATE INDEX issues_project_last_seen ON public.issues USING btree (project_id, last_seen DESC);
CREATE INDEX issues_project_noise ON public.issues USING btree (project_id, triage) WHERE ((noise <> ''::text) AND (merged_into IS NULL));
CREATE INDEX issues_project_triage_last_seen ON public.issues USING btree (project_id, triage, last_seen DESC);
CREATE INDEX issues_project_user_count ON public.issues USING btree (project_id, user_count DESC);
CREATE INDEX issues_search_trgm ON public.issues USING gin ((((title || ' '::text) || culprit)) public.gin_trgm_ops);
CREATE INDEX matching_decisions_environment ON public.matching_decisions USING btree (project_id, environment_id, decided_at);
CREATE INDEX project_invitations_project ON public.project_invitations USING btree (project_id, created_at DESC);
CREATE INDEX project_members_user ON public.project_members USING btree (user_id);
CREATE INDEX projects_digest_next_at ON public.projects USING btree (digest_next_at);
CREATE INDEX projects_owner ON public.projects USING btree (owner_id);
CREATE INDEX recording_chunks_object ON public.recording_chunks USING btree (object_key);
CREATE INDEX recordings_last ON public.recordings USING btree (last_at);
CREATE INDEX recordings_open ON public.recordings USING btree (received_at) WHERE (closed_at IS NULL);
CREATE INDEX recordings_project_last ON public.recordings USING btree (project_id, last_at DESC);
CREATE INDEX recordings_user ON public.recordings USING btree (project_id, user_key) WHERE (user_key IS NOT NULL);
CREATE INDEX setup_sessions_project ON public.setup_sessions USING btree (project_id) WHERE (project_id IS NOT NULL);
CREATE UNIQUE INDEX sourcemaps_debug_id ON public.sourcemaps USING btree (project_id, debug_id) WHERE (debug_id IS NOT NULL);
CREATE INDEX ticket_checks_budget ON public.ticket_checks USING btree (project_id, utc_day);
CREATE INDEX ticket_matches_recording ON public.ticket_matches USING btree (project_id, recording_id);
CREATE INDEX tickets_embedding ON public.tickets USING hnsw (embedding public.vector_cosine_ops);
CREATE INDEX tickets_environment ON public.tickets USING btree (project_id, environment_id, state);
CREATE INDEX tickets_pages ON public.tickets USING gin (pages);
CREATE INDEX tickets_screen ON public.tickets USING btree (project_id, environment_id, kind, screen);
CREATE UNIQUE INDEX users_email ON public.users USING btree (lower(email)) WHERE (email IS NOT NULL);
CREATE INDEX web_sessions_user ON public.web_sessions USING btree (user_id);
ALTER INDEX public.events_issue_received ATTACH PARTITION public.events_default_issue_id_received_at_idx;
ALTER INDEX public.events_issue_recording ATTACH PARTITION public.events_default_issue_id_recording_id_idx;
ALTER INDEX public.events_pkey ATTACH PARTITION public.events_default_pkey;
ALTER INDEX public.events_project_received ATTACH PARTITION public.events_default_project_id_received_at_idx;
CREATE TRIGGER digest_items_keep_facts BEFORE UPDATE ON public.digest_items FOR EACH ROW EXECUTE FUNCTION public.digest_items_keep_facts();
CREATE TRIGGER digests_keep_payload BEFORE UPDATE ON public.digests FOR EACH ROW EXECUTE FUNCTION public.digests_keep_payload();
CREATE TRIGGER projects_owner_membership AFTER INSERT OR UPDATE OF owner_id ON public.projects FOR EACH ROW WHEN ((new.owner_id IS NOT NULL)) EXECUTE FUNCTION public.project_owner_membership();
ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.alert_firings
    ADD CONSTRAINT alert_firings_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.alert_deliveries(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.alert_firings
    ADD CONSTRAINT alert_firings_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.alert_firings
    ADD CONSTRAINT alert_firings_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.digest_items
    ADD CONSTRAINT digest_items_digest_id_fkey FOREIGN KEY (digest_id) REFERENCES public.digests(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE public.events
    ADD CONSTRAINT events_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE SET NULL;
ALTER TABLE public.events
    ADD CONSTRAINT events_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE public.events
    ADD CONSTRAINT events_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.fix_evidence
    ADD CONSTRAINT fix_evidence_fix_id_fkey FOREIGN KEY (fix_id) REFERENCES public.fixes(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.fixes
    ADD CONSTRAINT fixes_investigation_id_fkey FOREIGN KEY (investigation_id) REFERENCES public.investigations(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.fixes
    ADD CONSTRAINT fixes_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.fixes
    ADD CONSTRAINT fixes_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.fixes
    ADD CONSTRAINT fixes_requested_by_fkey FOREIGN KEY (requested_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.friction_findings
    ADD CONSTRAINT friction_findings_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.friction_findings
    ADD CONSTRAINT friction_findings_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.friction_findings
    ADD CONSTRAINT friction_findings_project_id_recording_id_fkey FOREIGN KEY (project_id, recording_id) REFERENCES public.recordings(project_id, id) ON DELETE CASCADE;
ALTER TABLE ONLY public.friction_jobs
    ADD CONSTRAINT friction_jobs_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.friction_scans
    ADD CONSTRAINT friction_scans_project_id_recording_id_fkey FOREIGN KEY (project_id, recording_id) REFERENCES public.recordings(project_id, id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigation_citations
    ADD CONSTRAINT investigation_citations_investigation_id_fkey FOREIGN KEY (investigation_id) REFERENCES public.investigations(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigation_outcomes
    ADD CONSTRAINT investigation_outcomes_investigation_id_fkey FOREIGN KEY (investigation_id) REFERENCES public.investigations(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigation_steps
    ADD CONSTRAINT investigation_steps_investigation_id_fkey FOREIGN KEY (investigation_id) REFERENCES public.investigations(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigations
    ADD CONSTRAINT investigations_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigations
    ADD CONSTRAINT investigations_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.investigations
    ADD CONSTRAINT investigations_requested_by_fkey FOREIGN KEY (requested_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.issue_actors
    ADD CONSTRAINT issue_actors_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_admission_notes
    ADD CONSTRAINT issue_admission_notes_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_environments
    ADD CONSTRAINT issue_environments_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_environments
    ADD CONSTRAINT issue_environments_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_environments
    ADD CONSTRAINT issue_environments_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_fingerprint_aliases
    ADD CONSTRAINT issue_fingerprint_aliases_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_fingerprint_aliases
    ADD CONSTRAINT issue_fingerprint_aliases_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_history
    ADD CONSTRAINT issue_history_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_history
    ADD CONSTRAINT issue_history_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_pull_requests
    ADD CONSTRAINT issue_pull_requests_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_pull_requests
    ADD CONSTRAINT issue_pull_requests_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_recordings
    ADD CONSTRAINT issue_recordings_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_releases
    ADD CONSTRAINT issue_releases_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_releases
    ADD CONSTRAINT issue_releases_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_merged_into_fkey FOREIGN KEY (merged_into) REFERENCES public.issues(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.matching_decisions
    ADD CONSTRAINT matching_decisions_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES public.friction_findings(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.matching_decisions
    ADD CONSTRAINT matching_decisions_ticket_id_fkey FOREIGN KEY (ticket_id) REFERENCES public.tickets(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.project_invitations
    ADD CONSTRAINT project_invitations_accepted_by_fkey FOREIGN KEY (accepted_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.project_invitations
    ADD CONSTRAINT project_invitations_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.project_invitations
    ADD CONSTRAINT project_invitations_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.project_members
    ADD CONSTRAINT project_members_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.project_members
    ADD CONSTRAINT project_members_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.project_members
    ADD CONSTRAINT project_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.recording_chunks
    ADD CONSTRAINT recording_chunks_project_id_recording_id_fkey FOREIGN KEY (project_id, recording_id) REFERENCES public.recordings(project_id, id) ON DELETE CASCADE;
ALTER TABLE ONLY public.recordings
    ADD CONSTRAINT recordings_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.recordings
    ADD CONSTRAINT recordings_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.releases
    ADD CONSTRAINT releases_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.setup_sessions
    ADD CONSTRAINT setup_sessions_approved_by_fkey FOREIGN KEY (approved_by) REFERENCES public.users(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.setup_sessions
    ADD CONSTRAINT setup_sessions_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.setup_steps
    ADD CONSTRAINT setup_steps_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.setup_sessions(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.ticket_checks
    ADD CONSTRAINT ticket_checks_ticket_id_fkey FOREIGN KEY (ticket_id) REFERENCES public.tickets(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.ticket_matches
    ADD CONSTRAINT ticket_matches_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES public.friction_findings(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.ticket_matches
    ADD CONSTRAINT ticket_matches_ticket_id_fkey FOREIGN KEY (ticket_id) REFERENCES public.tickets(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_same_fix_ticket_id_fkey FOREIGN KEY (same_fix_ticket_id) REFERENCES public.tickets(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
