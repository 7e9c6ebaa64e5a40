/**
 * Writes config/panelbridge.schema.json from the mapping schema (`npm run schema`). A test fails when
 * the committed file is stale.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { configSchemaText } from '../src/mappings/schema-file.js'

const target = fileURLToPath(new URL('../config/panelbridge.schema.json', import.meta.url))
writeFileSync(target, configSchemaText())
process.stdout.write(`wrote ${target}\n`)
