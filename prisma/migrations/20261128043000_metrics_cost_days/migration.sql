-- Per-day sums of the Kubernetes cost read, kept for closed days (see shared/metrics/store/postgres/cost-days.ts).
-- A month of a 6,000-container cluster is 180,000 container-days here against 4.32 million
-- container-hours in metrics.pod_1h, which is what the cost read scanned for every month it answered.

-- One container's charges of one UTC day: the sum over its hours of max(request, usage) times the
-- part of the hour it was seen, with the node and requests it was summed with (a read re-sums the
-- day when the container's series row no longer says the same).
CREATE TABLE metrics.cost_day (
  cluster text NOT NULL,
  day date NOT NULL,
  series_id integer NOT NULL,
  node text,
  cpu_request double precision,
  mem_request double precision,
  cpu double precision,
  mem double precision,
  PRIMARY KEY (cluster, day, series_id)
);

-- The same charges summed per node and hour: a read compares them with the node's allocatable to
-- find the node-hours the allocation caps.
CREATE TABLE metrics.cost_node_hour (
  cluster text NOT NULL,
  bucket timestamptz NOT NULL,
  node text NOT NULL,
  cpu double precision,
  mem double precision,
  PRIMARY KEY (cluster, bucket, node)
);

-- The days summed (a day summed to no rows is still summed).
CREATE TABLE metrics.cost_day_summed (
  cluster text NOT NULL,
  day date NOT NULL,
  summed_at timestamptz NOT NULL,
  PRIMARY KEY (cluster, day)
);

-- Closed days a batch wrote samples into since they were summed: summed again on the next read.
CREATE TABLE metrics.cost_day_late (
  cluster text NOT NULL,
  day date NOT NULL,
  marked_at timestamptz NOT NULL,
  PRIMARY KEY (cluster, day)
);
