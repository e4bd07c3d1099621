import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startAzurite } from '../../dev/azurite.js';
import { writeMigratedPgliteTemplate } from './pglite-template.js';

/**
 * One Azurite for the whole run (each test host uses its own queue names on it), and one migrated
 * PGlite data directory the PGlite test hosts start from.
 */
export default async function setup(project: TestProject) {
  const work = await mkdtemp(path.join(tmpdir(), 'finwatch-test-'));
  const templateFile = path.join(work, 'pglite-migrated.tar');
  const [azurite] = await Promise.all([startAzurite(), writeMigratedPgliteTemplate(templateFile)]);
  process.env.FINWATCH_TEST_AZURITE = azurite.connectionString;
  project.provide('azuriteConnectionString', azurite.connectionString);
  project.provide('pgliteTemplateFile', templateFile);
  // Where the package tests share one deployment package build (test/support/shared-package.ts).
  const packageBuildRoot = path.join(work, 'package-build');
  await mkdir(packageBuildRoot);
  project.provide('packageBuildRoot', packageBuildRoot);
  return async () => {
    await azurite.stop();
    await rm(work, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    azuriteConnectionString: string;
    pgliteTemplateFile: string;
    packageBuildRoot: string;
  }
}
