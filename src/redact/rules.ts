/**
 * The secret catalogue, assembled: vendor tokens by shape, service-named assignments, and the generic rules
 * last (where a vendor rule and a generic one find the same value, the vendor's name is the one reported).
 * What the preset of secretlint finds is added by the scanner; docs/secret-coverage.md lists what each rule
 * catches and how gitleaks' default rules map onto these.
 */
import type { SecretRule } from "./catalogue.js";
import { appRules } from "./rules-apps.js";
import { cloudRules } from "./rules-cloud.js";
import { codeRules } from "./rules-code.js";
import { edgeRules } from "./rules-edges.js";
import { familyAndSyntaxRules, namedRules } from "./rules-families.js";
import { formRules } from "./rules-forms.js";
import { genericRules } from "./rules-generic.js";
import { keyedRules } from "./rules-keyed.js";
import { shapeRules, syntaxRules } from "./rules-shapes.js";

let built: readonly SecretRule[] | null = null;

/**
 * Every rule of funes's catalogue; ids are unique. Built on the first call, so importing the redact layer (every
 * CLI command does) costs nothing until something is scanned.
 */
export function catalogue(): readonly SecretRule[] {
  built ??= [
    ...appRules(),
    ...codeRules(),
    ...cloudRules(),
    ...familyAndSyntaxRules(),
    ...syntaxRules(),
    // Issue 40's kinds (webhooks, wallet keys, PATs) and name shapes, before the generic names.
    ...edgeRules(),
    ...keyedRules(),
    ...genericRules(),
    ...namedRules(),
    // Forms (a command's output, a sentence): after the rules that name a value by its kind.
    ...formRules(),
    // Last: a vendor's own rule names a token it knows before the prefixed-token shape does.
    ...shapeRules(),
  ];
  return built;
}
