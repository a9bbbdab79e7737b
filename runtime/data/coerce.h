/* Argument coercion for tool calls: the repairs a lenient tool runtime applies to a model's
 * arguments before validating them against the tool's input schema (numeric strings to
 * numbers, "yes" to true, a bare value to a one-item array, enum case and whitespace fixes,
 * nulls of optional fields dropped). Off unless a caller asks for it; every change is reported.
 *
 * Rules, driven by the top-level "properties" and "required" of the schema:
 *  1. a null value of a field that is not required is dropped;
 *  2. "" of a non-required field is dropped when the field's type is not string, or it is a
 *     string with an enum;
 *  3. a string becomes the declared type: integer ("5", "5.0"; "3.14" stays), number,
 *     boolean (true/false/t/f/1/0 in any case, yes/no in any case), object (JSON object
 *     text), array (JSON array text; any other string becomes a one-item array);
 *  4. a string field with an enum: surrounding whitespace trimmed, then a unique
 *     case-insensitive match replaced by the canonical value;
 *  5. the numbers 1 and 0 become true and false for boolean fields;
 *  6. a bare (non-array) number, boolean or object for an array field becomes a one-item array;
 *  7. in arrays whose items have a non-string type, string elements are coerced as in 3.
 * A value that cannot be coerced is left unchanged, for validation to report. */
#ifndef FORGE_DATA_COERCE_H
#define FORGE_DATA_COERCE_H
#include <cjson/cJSON.h>
#include "base/err.h"

/* Coerces the object <args> in place toward <schema> (both borrowed; <args> is modified).
 * Returns the number of coercions applied (0 or more) or a negative FORGE_E* code
 * (FORGE_ENOMEM) with <err> set. When <coercions> is not NULL, *coercions is set to a new
 * cJSON array of {"path": JSON pointer, "from": old value, "to": new value or absent when
 * the field was dropped, "rule": short name}. Arguments that are not an object, or a schema
 * without "properties", yield 0 coercions. */
int forge_coerce_args(cJSON *args, const cJSON *schema, cJSON **coercions, struct forge_err *err);
#endif
