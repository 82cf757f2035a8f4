/** Validates spec/openapi.yaml against the OpenAPI 3.1 schema; exits 1 with the errors if not. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { SPEC_PATH } from '../spec/index.ts';

const validator = new Validator();
const result = await validator.validate(SPEC_PATH);
if (!result.valid || validator.version !== '3.1') {
  console.error(`spec/openapi.yaml is not a valid OpenAPI 3.1 document (version ${validator.version}):`);
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
console.log(`spec/openapi.yaml: valid OpenAPI ${validator.version} document`);
