-- Per-issue sampling (docs/sampling.md): past an issue's cap in its window, the grouper stores an
-- event slim (its columns, a grouping without frames, payload {"sampled":true}) with whole false,
-- so the row still deduplicates and counts it. The issue row holds its current window: when it
-- started and how many events it counted. The grouper owns both tables. Additive only; a constant
-- default is a catalogue change, on a plain or a partitioned events table alike.
ALTER TABLE events ADD COLUMN whole boolean NOT NULL DEFAULT true;

ALTER TABLE issues
  ADD COLUMN sample_window_start timestamptz,
  ADD COLUMN sample_window_events integer NOT NULL DEFAULT 0;
