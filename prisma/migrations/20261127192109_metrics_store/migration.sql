-- CreateTable
CREATE TABLE "MetricsIngestKeys" (
    "id" SERIAL NOT NULL,
    "clusterName" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedBy" TEXT,
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "MetricsIngestKeys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsIngestBatches" (
    "clusterName" TEXT NOT NULL,
    "batchId" UUID NOT NULL,
    "records" INTEGER NOT NULL,
    "storedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MetricsIngestBatches_pkey" PRIMARY KEY ("clusterName","batchId")
);

-- CreateTable
CREATE TABLE "MetricsPodSeries" (
    "id" SERIAL NOT NULL,
    "seriesKey" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "pod" TEXT NOT NULL,
    "container" TEXT NOT NULL,
    "nodeName" TEXT,
    "ownerKind" TEXT,
    "ownerName" TEXT,
    "labels" JSONB,
    "cpuRequestCores" DOUBLE PRECISION,
    "memoryRequestBytes" DOUBLE PRECISION,
    "lastTerminationReason" TEXT,
    "cpuLimitCores" DOUBLE PRECISION,
    "memoryLimitBytes" DOUBLE PRECISION,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsPodSeries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsNodeSeries" (
    "id" SERIAL NOT NULL,
    "seriesKey" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,
    "clusterEnvironment" TEXT,
    "kubernetesVersion" TEXT,
    "cloudProvider" TEXT,
    "architecture" TEXT,
    "operatingSystem" TEXT,
    "region" TEXT,
    "instanceType" TEXT,
    "providerId" TEXT,
    "nodePool" TEXT,
    "cpuAllocatableCores" DOUBLE PRECISION,
    "memoryAllocatableBytes" DOUBLE PRECISION,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsNodeSeries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsPvcSeries" (
    "id" SERIAL NOT NULL,
    "seriesKey" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "pod" TEXT NOT NULL,
    "pvcNamespace" TEXT NOT NULL,
    "pvcName" TEXT NOT NULL,
    "volumeName" TEXT,
    "azureDiskResourceId" TEXT,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsPvcSeries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsPodStates" (
    "id" SMALLSERIAL NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "MetricsPodStates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricsPodLogs" (
    "seriesKey" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "pod" TEXT NOT NULL,
    "container" TEXT NOT NULL,
    "logContent" TEXT NOT NULL,
    "collectedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsPodLogs_pkey" PRIMARY KEY ("seriesKey")
);

-- CreateTable
CREATE TABLE "MetricsEvents" (
    "id" SERIAL NOT NULL,
    "eventKey" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "eventUid" TEXT NOT NULL,
    "involvedObjectKind" TEXT NOT NULL,
    "involvedObjectName" TEXT NOT NULL,
    "involvedObjectNamespace" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "sourceComponent" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "firstTimestamp" TIMESTAMPTZ(3),
    "lastTimestamp" TIMESTAMPTZ(3),
    "collectedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricsEvents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "MetricsIngestKeys_keyHash_key" ON "MetricsIngestKeys"("keyHash");

-- CreateIndex
CREATE INDEX "MetricsIngestKeys_clusterName_idx" ON "MetricsIngestKeys"("clusterName");

-- CreateIndex
CREATE INDEX "MetricsIngestBatches_storedAt_idx" ON "MetricsIngestBatches"("storedAt");

-- CreateIndex
CREATE UNIQUE INDEX "MetricsPodSeries_seriesKey_key" ON "MetricsPodSeries"("seriesKey");

-- CreateIndex
CREATE INDEX "MetricsPodSeries_clusterName_namespace_lastSeenAt_idx" ON "MetricsPodSeries"("clusterName", "namespace", "lastSeenAt");

-- CreateIndex
CREATE INDEX "MetricsPodSeries_lastSeenAt_idx" ON "MetricsPodSeries"("lastSeenAt");

-- CreateIndex
CREATE UNIQUE INDEX "MetricsNodeSeries_seriesKey_key" ON "MetricsNodeSeries"("seriesKey");

-- CreateIndex
CREATE INDEX "MetricsNodeSeries_clusterName_lastSeenAt_idx" ON "MetricsNodeSeries"("clusterName", "lastSeenAt");

-- CreateIndex
CREATE INDEX "MetricsNodeSeries_lastSeenAt_idx" ON "MetricsNodeSeries"("lastSeenAt");

-- CreateIndex
CREATE UNIQUE INDEX "MetricsPvcSeries_seriesKey_key" ON "MetricsPvcSeries"("seriesKey");

-- CreateIndex
CREATE INDEX "MetricsPvcSeries_clusterName_namespace_lastSeenAt_idx" ON "MetricsPvcSeries"("clusterName", "namespace", "lastSeenAt");

-- CreateIndex
CREATE INDEX "MetricsPvcSeries_lastSeenAt_idx" ON "MetricsPvcSeries"("lastSeenAt");

-- CreateIndex
CREATE UNIQUE INDEX "MetricsPodStates_name_key" ON "MetricsPodStates"("name");

-- CreateIndex
CREATE INDEX "MetricsPodLogs_clusterName_namespace_collectedAt_idx" ON "MetricsPodLogs"("clusterName", "namespace", "collectedAt");

-- CreateIndex
CREATE INDEX "MetricsPodLogs_collectedAt_idx" ON "MetricsPodLogs"("collectedAt");

-- CreateIndex
CREATE UNIQUE INDEX "MetricsEvents_eventKey_key" ON "MetricsEvents"("eventKey");

-- CreateIndex
CREATE INDEX "MetricsEvents_clusterName_namespace_collectedAt_idx" ON "MetricsEvents"("clusterName", "namespace", "collectedAt");

-- CreateIndex
CREATE INDEX "MetricsEvents_collectedAt_idx" ON "MetricsEvents"("collectedAt");

-- Samples and their rollups, in raw SQL because Prisma cannot declare partitioned tables. They live
-- in their own schema, metrics, which the Prisma diff does not look at. The code describes the same
-- tables in shared/metrics/store/postgres/tables.ts. Partitions (raw and 5-minute by day, hourly by
-- month) are created ahead and dropped past retention by the store housekeeping, never by DELETE.
CREATE SCHEMA IF NOT EXISTS metrics;

CREATE TABLE metrics.pod_raw (
  ts timestamptz NOT NULL,
  series_id integer NOT NULL,
  mem double precision NOT NULL,
  cpu real NOT NULL,
  restarts integer NOT NULL,
  pod_age integer,
  state smallint
) PARTITION BY RANGE (ts);

CREATE INDEX pod_raw_series_ts ON metrics.pod_raw (series_id, ts);

CREATE TABLE metrics.pod_5m (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  mem_sum double precision,
  mem_n integer NOT NULL,
  cpu_sum double precision,
  cpu_n integer NOT NULL,
  restarts integer,
  pod_age integer,
  state smallint,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);

CREATE TABLE metrics.pod_1h (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  mem_sum double precision,
  mem_n integer NOT NULL,
  cpu_sum double precision,
  cpu_n integer NOT NULL,
  restarts integer,
  pod_age integer,
  state smallint,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);

CREATE TABLE metrics.node_raw (
  ts timestamptz NOT NULL,
  series_id integer NOT NULL,
  mem double precision NOT NULL,
  mem_capacity double precision NOT NULL,
  cpu real NOT NULL,
  cpu_capacity real NOT NULL,
  ready boolean,
  memory_pressure boolean,
  disk_pressure boolean,
  pid_pressure boolean
) PARTITION BY RANGE (ts);

CREATE INDEX node_raw_series_ts ON metrics.node_raw (series_id, ts);

CREATE TABLE metrics.node_5m (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  mem_sum double precision,
  mem_n integer NOT NULL,
  mem_capacity_sum double precision,
  mem_capacity_n integer NOT NULL,
  cpu_sum double precision,
  cpu_n integer NOT NULL,
  cpu_capacity_sum double precision,
  cpu_capacity_n integer NOT NULL,
  ready boolean,
  memory_pressure boolean,
  disk_pressure boolean,
  pid_pressure boolean,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);

CREATE TABLE metrics.node_1h (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  mem_sum double precision,
  mem_n integer NOT NULL,
  mem_capacity_sum double precision,
  mem_capacity_n integer NOT NULL,
  cpu_sum double precision,
  cpu_n integer NOT NULL,
  cpu_capacity_sum double precision,
  cpu_capacity_n integer NOT NULL,
  ready boolean,
  memory_pressure boolean,
  disk_pressure boolean,
  pid_pressure boolean,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);

CREATE TABLE metrics.pvc_raw (
  ts timestamptz NOT NULL,
  series_id integer NOT NULL,
  used bigint NOT NULL,
  available bigint NOT NULL,
  capacity bigint NOT NULL
) PARTITION BY RANGE (ts);

CREATE INDEX pvc_raw_series_ts ON metrics.pvc_raw (series_id, ts);

CREATE TABLE metrics.pvc_5m (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  used_sum double precision,
  used_n integer NOT NULL,
  available_sum double precision,
  available_n integer NOT NULL,
  capacity_sum double precision,
  capacity_n integer NOT NULL,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);

CREATE TABLE metrics.pvc_1h (
  bucket timestamptz NOT NULL,
  series_id integer NOT NULL,
  n integer NOT NULL,
  last_ts timestamptz NOT NULL,
  used_sum double precision,
  used_n integer NOT NULL,
  available_sum double precision,
  available_n integer NOT NULL,
  capacity_sum double precision,
  capacity_n integer NOT NULL,
  PRIMARY KEY (series_id, bucket)
) PARTITION BY RANGE (bucket);
