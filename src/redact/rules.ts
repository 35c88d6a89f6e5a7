/**
 * The secret catalogue, assembled: vendor tokens by shape, service-named assignments, and the generic rules
 * last (where a vendor rule and a generic one find the same value, the vendor's name is the one reported).
 * What the preset of secretlint finds is added by the scanner; docs/secret-coverage.md lists what each rule
 * catches and how gitleaks' default rules map onto these.
 */
import type { SecretRule } from "./catalogue.js";
import { APP_RULES } from "./rules-apps.js";
import { CLOUD_RULES } from "./rules-cloud.js";
import { CODE_RULES } from "./rules-code.js";
import { GENERIC_RULES } from "./rules-generic.js";
import { KEYED_RULES } from "./rules-keyed.js";

/** Every rule of funes's catalogue; ids are unique. */
export const CATALOGUE: readonly SecretRule[] = [
  ...APP_RULES,
  ...CODE_RULES,
  ...CLOUD_RULES,
  ...KEYED_RULES,
  ...GENERIC_RULES,
];
