import { defineConfig } from 'prisma/config';

// The CLI is used only for `prisma generate`; migrations run through the WebAssembly schema
// engine at startup (shared/db/migrate.ts), so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});
