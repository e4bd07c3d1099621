-- A namespace's containers over a window are read from the pod rollups by (series_id, bucket).
-- Rows land in time order (each bucket's rows of every container side by side), so one container's
-- buckets sit on as many heap pages as there are buckets, and a 120-container day of 5-minute rows
-- touched about 20,000 pages at 6,000 containers. The key now carries the columns a read returns,
-- so the read is an index-only scan over one container's buckets kept together in the index.
-- The upsert's ON CONFLICT (series_id, bucket) keeps using the same key. Rebuilding the key
-- rewrites only the index of each existing partition: no row is changed.
ALTER TABLE metrics.pod_5m DROP CONSTRAINT pod_5m_pkey;
ALTER TABLE metrics.pod_5m ADD CONSTRAINT pod_5m_pkey PRIMARY KEY (series_id, bucket)
  INCLUDE (last_ts, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state);

ALTER TABLE metrics.pod_1h DROP CONSTRAINT pod_1h_pkey;
ALTER TABLE metrics.pod_1h ADD CONSTRAINT pod_1h_pkey PRIMARY KEY (series_id, bucket)
  INCLUDE (last_ts, mem_sum, mem_n, cpu_sum, cpu_n, restarts, pod_age, state);
