-- Subscription ids are stored in lower case and trimmed, as the API now writes them, so every
-- query compares them plainly (and can use its index). Rows written before kept the id as the
-- client typed it. They are lowered here.
UPDATE "AnalysisRuns" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "AnalysisJobs" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "HistoricalCosts" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "CostImports" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "NotificationChannels" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "WasteSuppressions" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
UPDATE "WasteExclusions" SET "subscriptionId" = lower(trim("subscriptionId")) WHERE "subscriptionId" <> lower(trim("subscriptionId"));
-- Unique per subscription: a row that shares its lower-case id with another row stays as it is
-- (none is expected: these were written in lower case from the start), so the migration cannot
-- fail on a duplicate.
UPDATE "Subscriptions" s SET "subscriptionId" = lower(trim(s."subscriptionId"))
 WHERE s."subscriptionId" <> lower(trim(s."subscriptionId"))
   AND NOT EXISTS (
     SELECT 1 FROM "Subscriptions" t
      WHERE lower(trim(t."subscriptionId")) = lower(trim(s."subscriptionId")) AND t.id <> s.id);
UPDATE "CostAnomalies" a SET "subscriptionId" = lower(trim(a."subscriptionId"))
 WHERE a."subscriptionId" <> lower(trim(a."subscriptionId"))
   AND NOT EXISTS (
     SELECT 1 FROM "CostAnomalies" b
      WHERE lower(trim(b."subscriptionId")) = lower(trim(a."subscriptionId")) AND b.id <> a.id
        AND b."scopeKind" = a."scopeKind" AND b."scopeName" = a."scopeName" AND b.kind = a.kind
        AND b.date = a.date);
