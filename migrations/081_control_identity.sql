-- One known problem per broken control (issue 28; docs/known-problems.md, "Control identity").
-- A finding's control is told by its screen and the names it goes by on it (its stable id, the
-- words it reads by); matching lets a finding join, and a check confirm, only a known problem of
-- the same control, and embeds the finding's subject (what is specific to it) instead of its
-- narrative. A known problem keeps its screen, every name its findings went by, and its subject.
--
-- embedding_of says what a vector was computed from: 'subject' from this migration on, 'narrative'
-- for the vectors written before it. Vectors are compared only when both their model and this
-- agree, so a vector of a whole narrative never meets one of a subject.

ALTER TABLE friction_findings
  ADD COLUMN screen text NOT NULL DEFAULT '',
  ADD COLUMN control_names text[] NOT NULL DEFAULT '{}',
  ADD COLUMN subject text NOT NULL DEFAULT '',
  ADD COLUMN embedding_of text CHECK (embedding_of IN ('narrative', 'subject'));

ALTER TABLE tickets
  ADD COLUMN screen text NOT NULL DEFAULT '',
  ADD COLUMN control_names text[] NOT NULL DEFAULT '{}',
  ADD COLUMN subject text NOT NULL DEFAULT '',
  ADD COLUMN embedding_of text CHECK (embedding_of IN ('narrative', 'subject'));

-- The backfill reads what the rows kept: the page, the target as the scan described it
-- (tag#id.classes "words") and the narrative. Its helpers live for this session only.

-- services/matcher/friction/control.ts screenOf: the path without its query, id segments :id.
CREATE OR REPLACE FUNCTION pg_temp.screen_of(page text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN length(p) > 1 THEN coalesce(nullif(regexp_replace(p, '/+$', ''), ''), '/') ELSE coalesce(nullif(p, ''), '/') END
  FROM (SELECT regexp_replace(split_part(split_part(page, '?', 1), '#', 1),
          '/(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[a-z]*\d)[a-z0-9]{16,})(?=/|$)', '/:id', 'gi') AS p) AS s
$$;

-- control.ts foldLabel, for the letters PostgreSQL's locale knows (a label it folds otherwise
-- names nothing the scan writes now: its known problem is joined by its id alone).
CREATE OR REPLACE FUNCTION pg_temp.fold_label(words text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT left(btrim(regexp_replace(regexp_replace(lower(normalize(words, NFKC)), '[0-9]+', '0', 'g'), '[^[:alnum:]]+', ' ', 'g')), 80)
$$;

-- A control's names from its description. A hand-written id (no digit) is its name; only a
-- control without one is also named by its words: whether another element of the page read the
-- same was not recorded, so the id, where there is one, is the safer name.
CREATE OR REPLACE FUNCTION pg_temp.names_of(target text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN id IS NOT NULL AND id !~ '[0-9]' THEN ARRAY[tag || '#' || id]
    WHEN coalesce(pg_temp.fold_label(words), '') <> '' THEN ARRAY[tag || ' "' || pg_temp.fold_label(words) || '"']
    ELSE '{}'::text[] END
  FROM (SELECT coalesce(substring(target FROM '^([a-z0-9-]+)'), 'element') AS tag,
               substring(target FROM '^[a-z0-9-]+#([^ ."]+)') AS id,
               substring(target FROM ' "(.*)"$') AS words) AS parts
$$;

-- narrative.ts subjectOf: an error's message (from the narrative's quote), else the target on its screen.
CREATE OR REPLACE FUNCTION pg_temp.subject_of(kind text, target text, screen text, narrative text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT left(CASE WHEN kind = 'error_after_click' THEN coalesce(substring(narrative FROM 'the error "(.*)"'), '') ELSE target || ' on ' || screen END, 300)
$$;

UPDATE friction_findings SET screen = pg_temp.screen_of(page), control_names = pg_temp.names_of(target),
  embedding_of = CASE WHEN embedding IS NOT NULL THEN 'narrative' END;
UPDATE friction_findings SET subject = pg_temp.subject_of(kind, target, screen, narrative);

-- A known problem goes by the names of the finding that opened it (its target), not those of the
-- findings it gathered since: those were joined by nearness alone, which is what merged controls.
UPDATE tickets SET screen = pg_temp.screen_of(page), control_names = pg_temp.names_of(target),
  embedding_of = CASE WHEN embedding IS NOT NULL THEN 'narrative' END;
UPDATE tickets SET subject = pg_temp.subject_of(kind, target, screen, narrative);

DROP FUNCTION pg_temp.subject_of(text, text, text, text);
DROP FUNCTION pg_temp.names_of(text);
DROP FUNCTION pg_temp.fold_label(text);
DROP FUNCTION pg_temp.screen_of(text);

-- The shortlist's first half: the known problems of the finding's control, found by its screen.
CREATE INDEX tickets_screen ON tickets (project_id, environment_id, kind, screen);
