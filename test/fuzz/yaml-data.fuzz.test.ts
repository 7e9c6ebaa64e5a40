/**
 * The plain read of a mapping file (`readPlainData`, issue 24's new parser): any text, hostile JSON,
 * deep nesting, binary garbage or YAML-looking lines, gives data or gives up (undefined); it never
 * throws. That its data is the YAML document's is `test/mappings/yaml-data.test.ts`'s property.
 */
import { describe } from 'vitest'
import { readPlainData } from '../../src/mappings/yaml-data.js'
import { fc, fuzzParser, hostileText } from './harness.js'

const yamlLine = fc.oneof(
  fc.constantFrom('version: 1', '- a', '  - [a, b]', 'k: "x', "'q': 1", '? k', '<<: *a', '&a x', '%YAML 1.1', '---'),
  fc.string({ maxLength: 40 }),
)
const yamlText = fc.oneof(
  hostileText,
  fc.array(yamlLine, { maxLength: 30 }).map((lines) => lines.join('\n')),
)

describe('the plain read of a mapping file', () => {
  fuzzParser('readPlainData', { input: yamlText, parse: (text) => readPlainData(text) })
})
