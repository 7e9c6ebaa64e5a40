/** The text of `config/panelbridge.schema.json`, as `npm run schema` writes it. */
import { configJsonSchema } from './schema.js'

export function configSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`
}
