import type { TestProject } from 'vitest/node';
import { startAzurite } from '../../dev/azurite.js';

/** One Azurite for the whole run; each test host uses its own queue names on it. */
export default async function setup(project: TestProject) {
  const azurite = await startAzurite();
  process.env.FINWATCH_TEST_AZURITE = azurite.connectionString;
  project.provide('azuriteConnectionString', azurite.connectionString);
  return async () => {
    await azurite.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    azuriteConnectionString: string;
  }
}
