-- AddSubscriptionBudget: adds the monthly budget (USD, nullable) to databases created before it
-- existed. Idempotent: checks that the column is absent before adding it.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'Subscriptions' AND column_name = 'budget'
  ) THEN
    ALTER TABLE "Subscriptions" ADD COLUMN "budget" DECIMAL(18, 2) NULL;
  END IF;
END $$;
