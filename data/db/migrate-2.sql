-- mfstat performance database: schema 1 to schema 2 (docs/db.md, "Versions").
--
-- The RMF busy time of a roll-up as an exact integer of nanoseconds, summed from each sample's
-- seconds rounded to the nanosecond as report sums them: a double of a month's busy seconds of a
-- pool (10^16 ns and more) cannot hold every nanosecond, and LPARCPU_DIFF (the difference of two
-- nearly equal percentages) shows it.  Rows rolled up by schema 1 get it from their seconds;
-- `mfstat db rollup FILE.db` recomputes it from the samples still held.
ALTER TABLE rollup ADD COLUMN rmf_busy_ns INTEGER;
UPDATE rollup SET rmf_busy_ns = CAST(round(rmf_busy_s * 1e9) AS INTEGER) WHERE rmf_busy_s IS NOT NULL;
