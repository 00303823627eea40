-- Events are written far more often than they are searched inside. Keep the payload and the
-- grouping as json (the text as received, validated, no conversion to jsonb's binary form: the
-- stored event is byte for byte what the SDK sent) and compress them with lz4 where the server
-- was built with it; the default (pglz) cost the grouper a tenth of its write time.
ALTER TABLE events
  ALTER COLUMN payload TYPE json USING payload::json,
  ALTER COLUMN grouping TYPE json USING grouping::json;

DO $$
BEGIN
  ALTER TABLE events ALTER COLUMN payload SET COMPRESSION lz4, ALTER COLUMN grouping SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no lz4: events keep the default compression';
END $$;
