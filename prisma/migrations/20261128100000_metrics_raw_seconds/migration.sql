-- The raw sample tables keep a sample's time as whole seconds since 2000-01-01 00:00 UTC in an
-- integer (good until 2068) instead of a timestamptz (RAW_EPOCH_S in
-- shared/metrics/store/postgres/tables.ts). Four bytes instead of eight, and the alignment padding
-- they caused, make a pod sample's row 60 bytes instead of 68 and its (series_id, ts) index entry
-- 20 instead of 28. Milliseconds are dropped: the agent samples every 30 seconds.
--
-- The partition key of a partitioned table cannot change type, so each raw table is made again:
-- the old table and its partitions are renamed aside, the new table gets a partition of the same
-- name and range for each old one (its bounds in seconds), the rows are copied, the old tables are
-- dropped, and the (series_id, ts) index is built once over the copied rows (by sorting them, so
-- its pages are full). Housekeeping then packs each closed raw partition again, as before.
--
-- All of it is one DO statement, so it is done whole or not at all on either database: on a
-- PostgreSQL server the migration runner sends a script statement by statement, each on its own,
-- cutting the text at every semicolon. That is also why the block's semicolons are written \073
-- (its octal code, in an E'' string). A partition whose bounds are not a plain time range (none the
-- store makes) stops the migration rather than losing its rows.
DO E'
DECLARE
  k text\073
  p record\073
BEGIN
  ALTER TABLE metrics.pod_raw RENAME TO pod_raw_old\073
  ALTER INDEX metrics.pod_raw_series_ts RENAME TO pod_raw_old_series_ts\073
  ALTER TABLE metrics.node_raw RENAME TO node_raw_old\073
  ALTER INDEX metrics.node_raw_series_ts RENAME TO node_raw_old_series_ts\073
  ALTER TABLE metrics.pvc_raw RENAME TO pvc_raw_old\073
  ALTER INDEX metrics.pvc_raw_series_ts RENAME TO pvc_raw_old_series_ts\073

  CREATE TABLE metrics.pod_raw (
    ts integer NOT NULL,
    series_id integer NOT NULL,
    mem double precision NOT NULL,
    cpu real NOT NULL,
    restarts integer NOT NULL,
    pod_age integer,
    state smallint
  ) PARTITION BY RANGE (ts)\073

  CREATE TABLE metrics.node_raw (
    ts integer NOT NULL,
    series_id integer NOT NULL,
    mem double precision NOT NULL,
    mem_capacity double precision NOT NULL,
    cpu real NOT NULL,
    cpu_capacity real NOT NULL,
    ready boolean,
    memory_pressure boolean,
    disk_pressure boolean,
    pid_pressure boolean
  ) PARTITION BY RANGE (ts)\073

  CREATE TABLE metrics.pvc_raw (
    ts integer NOT NULL,
    series_id integer NOT NULL,
    used bigint NOT NULL,
    available bigint NOT NULL,
    capacity bigint NOT NULL
  ) PARTITION BY RANGE (ts)\073

  FOREACH k IN ARRAY ARRAY[''pod'', ''node'', ''pvc''] LOOP
    FOR p IN
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bounds
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = format(''metrics.%I'', k || ''_raw_old'')::regclass
    LOOP
      IF p.bounds NOT LIKE ''FOR VALUES FROM (%) TO (%)'' OR p.bounds LIKE ''%MINVALUE%''
         OR p.bounds LIKE ''%MAXVALUE%'' THEN
        RAISE EXCEPTION ''metrics.%: partition bounds "%" are not a time range'', p.name, p.bounds\073
      END IF\073
      EXECUTE format(''ALTER TABLE metrics.%I RENAME TO %I'', p.name, left(p.name, 59) || ''_old'')\073
      EXECUTE format(
        ''CREATE TABLE metrics.%I PARTITION OF metrics.%I FOR VALUES FROM (%s) TO (%s)'',
        p.name,
        k || ''_raw'',
        floor(extract(epoch FROM split_part(p.bounds, chr(39), 2)::timestamptz))::bigint - 946684800,
        ceil(extract(epoch FROM split_part(p.bounds, chr(39), 4)::timestamptz))::bigint - 946684800
      )\073
    END LOOP\073
  END LOOP\073

  INSERT INTO metrics.pod_raw (ts, series_id, mem, cpu, restarts, pod_age, state)
  SELECT floor(extract(epoch FROM ts))::integer - 946684800, series_id, mem, cpu, restarts, pod_age, state
    FROM metrics.pod_raw_old\073
  INSERT INTO metrics.node_raw (ts, series_id, mem, mem_capacity, cpu, cpu_capacity, ready,
                                memory_pressure, disk_pressure, pid_pressure)
  SELECT floor(extract(epoch FROM ts))::integer - 946684800, series_id, mem, mem_capacity, cpu, cpu_capacity,
         ready, memory_pressure, disk_pressure, pid_pressure
    FROM metrics.node_raw_old\073
  INSERT INTO metrics.pvc_raw (ts, series_id, used, available, capacity)
  SELECT floor(extract(epoch FROM ts))::integer - 946684800, series_id, used, available, capacity
    FROM metrics.pvc_raw_old\073

  DROP TABLE metrics.pod_raw_old, metrics.node_raw_old, metrics.pvc_raw_old\073

  CREATE INDEX pod_raw_series_ts ON metrics.pod_raw (series_id, ts)\073
  CREATE INDEX node_raw_series_ts ON metrics.node_raw (series_id, ts)\073
  CREATE INDEX pvc_raw_series_ts ON metrics.pvc_raw (series_id, ts)\073

  DELETE FROM metrics.packed_partitions WHERE name LIKE ''pod\\_raw\\_p%''
    OR name LIKE ''node\\_raw\\_p%'' OR name LIKE ''pvc\\_raw\\_p%''\073
END'
