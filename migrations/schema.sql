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
CREATE TABLE public.environments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    project_id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
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
    payload json NOT NULL
);
ALTER TABLE ONLY public.events ALTER COLUMN "grouping" SET COMPRESSION lz4;
ALTER TABLE ONLY public.events ALTER COLUMN payload SET COMPRESSION lz4;
CREATE TABLE public.issue_actors (
    issue_id uuid NOT NULL,
    actor_kind character(1) NOT NULL,
    actor text NOT NULL,
    first_seen timestamp with time zone NOT NULL,
    last_seen timestamp with time zone NOT NULL,
    CONSTRAINT issue_actors_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['u'::bpchar, 's'::bpchar])))
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
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE public.projects (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    codehost_repo text DEFAULT ''::text NOT NULL,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sourcemaps_uploaded_at timestamp with time zone,
    CONSTRAINT projects_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
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
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_project_id_name_key UNIQUE (project_id, name);
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.issue_actors
    ADD CONSTRAINT issue_actors_pkey PRIMARY KEY (issue_id, actor_kind, actor);
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_project_id_kind_fingerprint_key UNIQUE (project_id, kind, fingerprint);
ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_project_id_release_url_path_key UNIQUE (project_id, release, url_path);
CREATE INDEX api_keys_project ON public.api_keys USING btree (project_id);
CREATE INDEX events_issue_received ON public.events USING btree (issue_id, received_at DESC);
CREATE INDEX events_project_received ON public.events USING btree (project_id, received_at DESC);
CREATE INDEX issue_actors_recent ON public.issue_actors USING btree (issue_id, actor_kind, last_seen);
CREATE INDEX issues_project_last_seen ON public.issues USING btree (project_id, last_seen DESC);
CREATE UNIQUE INDEX sourcemaps_debug_id ON public.sourcemaps USING btree (project_id, debug_id) WHERE (debug_id IS NOT NULL);
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.environments
    ADD CONSTRAINT environments_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES public.environments(id) ON DELETE SET NULL;
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issue_actors
    ADD CONSTRAINT issue_actors_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES public.issues(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
ALTER TABLE ONLY public.sourcemaps
    ADD CONSTRAINT sourcemaps_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;
