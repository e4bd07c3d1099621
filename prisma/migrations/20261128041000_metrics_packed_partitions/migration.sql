-- Housekeeping rebuilds the indexes of a sample partition once its day (or month) has closed: rows
-- that arrive in time order across thousands of series leave the B-tree pages about two thirds
-- full, and one rebuild packs them. The partitions rebuilt so far are listed here, so each is
-- rebuilt once. A dropped partition's row is deleted with it.
CREATE TABLE metrics.packed_partitions (
  name text PRIMARY KEY,
  packed_at timestamptz NOT NULL DEFAULT now()
);
