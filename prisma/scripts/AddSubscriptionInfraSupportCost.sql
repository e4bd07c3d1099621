-- AddSubscriptionInfraSupportCost: adds the monthly infra support overlay (USD, default 400) to
-- databases created before it existed. Idempotent: checks that the column is absent before adding it.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'Subscriptions' AND column_name = 'infraSupportCost'
  ) THEN
    ALTER TABLE "Subscriptions" ADD COLUMN "infraSupportCost" DECIMAL(18, 2) NOT NULL DEFAULT 400;
  END IF;
END $$;
