/* The meta-schemas of drafts 4, 6, 7, 2019-09 and 2020-12 (with their vocabulary
 * meta-schemas), so that "$schema" and "$ref" to them resolve without a network. They are
 * written here in compact form: the validation keywords of each meta-schema, without titles,
 * descriptions and comments. */
#include "data/schema_int.h"

#include <string.h>

/* true and false must reach the JSON text as words, not as stdbool.h's 1 and 0 */
#undef true
#undef false
#define J(...) #__VA_ARGS__

static const char d4[] = J({
    "id": "http://json-schema.org/draft-04/schema#",
    "$schema": "http://json-schema.org/draft-04/schema#",
    "definitions": {
        "schemaArray": {"type": "array", "minItems": 1, "items": {"$ref": "#"}},
        "positiveInteger": {"type": "integer", "minimum": 0},
        "positiveIntegerDefault0": {"allOf": [{"$ref": "#/definitions/positiveInteger"}, {"default": 0}]},
        "simpleTypes": {"enum": ["array", "boolean", "integer", "null", "number", "object", "string"]},
        "stringArray": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": true}
    },
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "$schema": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "default": {},
        "multipleOf": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
        "maximum": {"type": "number"},
        "exclusiveMaximum": {"type": "boolean", "default": false},
        "minimum": {"type": "number"},
        "exclusiveMinimum": {"type": "boolean", "default": false},
        "maxLength": {"$ref": "#/definitions/positiveInteger"},
        "minLength": {"$ref": "#/definitions/positiveIntegerDefault0"},
        "pattern": {"type": "string", "format": "regex"},
        "additionalItems": {"anyOf": [{"type": "boolean"}, {"$ref": "#"}], "default": {}},
        "items": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/schemaArray"}], "default": {}},
        "maxItems": {"$ref": "#/definitions/positiveInteger"},
        "minItems": {"$ref": "#/definitions/positiveIntegerDefault0"},
        "uniqueItems": {"type": "boolean", "default": false},
        "maxProperties": {"$ref": "#/definitions/positiveInteger"},
        "minProperties": {"$ref": "#/definitions/positiveIntegerDefault0"},
        "required": {"$ref": "#/definitions/stringArray"},
        "additionalProperties": {"anyOf": [{"type": "boolean"}, {"$ref": "#"}], "default": {}},
        "definitions": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}},
        "properties": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}},
        "patternProperties": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}},
        "dependencies": {"type": "object", "additionalProperties": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/stringArray"}]}},
        "enum": {"type": "array", "minItems": 1, "uniqueItems": true},
        "type": {"anyOf": [
            {"$ref": "#/definitions/simpleTypes"},
            {"type": "array", "items": {"$ref": "#/definitions/simpleTypes"}, "minItems": 1, "uniqueItems": true}]},
        "format": {"type": "string"},
        "allOf": {"$ref": "#/definitions/schemaArray"},
        "anyOf": {"$ref": "#/definitions/schemaArray"},
        "oneOf": {"$ref": "#/definitions/schemaArray"},
        "not": {"$ref": "#"}
    },
    "dependencies": {"exclusiveMaximum": ["maximum"], "exclusiveMinimum": ["minimum"]},
    "default": {}
});

/* Drafts 6 and 7 share most of their text; 7 adds $comment, if/then/else, readOnly and the
 * content keywords. */
#define D67_COMMON \
        "$id": {"type": "string", "format": "uri-reference"}, \
        "$schema": {"type": "string", "format": "uri"}, \
        "$ref": {"type": "string", "format": "uri-reference"}, \
        "title": {"type": "string"}, \
        "description": {"type": "string"}, \
        "default": true, \
        "examples": {"type": "array", "items": true}, \
        "multipleOf": {"type": "number", "exclusiveMinimum": 0}, \
        "maximum": {"type": "number"}, \
        "exclusiveMaximum": {"type": "number"}, \
        "minimum": {"type": "number"}, \
        "exclusiveMinimum": {"type": "number"}, \
        "maxLength": {"$ref": "#/definitions/nonNegativeInteger"}, \
        "minLength": {"$ref": "#/definitions/nonNegativeIntegerDefault0"}, \
        "pattern": {"type": "string", "format": "regex"}, \
        "additionalItems": {"$ref": "#"}, \
        "items": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/schemaArray"}], "default": true}, \
        "maxItems": {"$ref": "#/definitions/nonNegativeInteger"}, \
        "minItems": {"$ref": "#/definitions/nonNegativeIntegerDefault0"}, \
        "uniqueItems": {"type": "boolean", "default": false}, \
        "contains": {"$ref": "#"}, \
        "maxProperties": {"$ref": "#/definitions/nonNegativeInteger"}, \
        "minProperties": {"$ref": "#/definitions/nonNegativeIntegerDefault0"}, \
        "required": {"$ref": "#/definitions/stringArray"}, \
        "additionalProperties": {"$ref": "#"}, \
        "definitions": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}}, \
        "properties": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}}, \
        "patternProperties": {"type": "object", "additionalProperties": {"$ref": "#"}, \
                              "propertyNames": {"format": "regex"}, "default": {}}, \
        "dependencies": {"type": "object", \
                         "additionalProperties": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/stringArray"}]}}, \
        "propertyNames": {"$ref": "#"}, \
        "const": true, \
        "type": {"anyOf": [ \
            {"$ref": "#/definitions/simpleTypes"}, \
            {"type": "array", "items": {"$ref": "#/definitions/simpleTypes"}, "minItems": 1, "uniqueItems": true}]}, \
        "format": {"type": "string"}, \
        "allOf": {"$ref": "#/definitions/schemaArray"}, \
        "anyOf": {"$ref": "#/definitions/schemaArray"}, \
        "oneOf": {"$ref": "#/definitions/schemaArray"}, \
        "not": {"$ref": "#"}

#define D67_DEFS \
    "definitions": { \
        "schemaArray": {"type": "array", "minItems": 1, "items": {"$ref": "#"}}, \
        "nonNegativeInteger": {"type": "integer", "minimum": 0}, \
        "nonNegativeIntegerDefault0": {"allOf": [{"$ref": "#/definitions/nonNegativeInteger"}, {"default": 0}]}, \
        "simpleTypes": {"enum": ["array", "boolean", "integer", "null", "number", "object", "string"]}, \
        "stringArray": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "default": []} \
    }

#define JX(...) J(__VA_ARGS__)
static const char d6[] = JX({
    "$schema": "http://json-schema.org/draft-06/schema#",
    "$id": "http://json-schema.org/draft-06/schema#",
    D67_DEFS,
    "type": ["object", "boolean"],
    "properties": {
        D67_COMMON,
        "enum": {"type": "array", "minItems": 1, "uniqueItems": true}
    },
    "default": {}
});

static const char d7[] = JX({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "http://json-schema.org/draft-07/schema#",
    D67_DEFS,
    "type": ["object", "boolean"],
    "properties": {
        D67_COMMON,
        "$comment": {"type": "string"},
        "readOnly": {"type": "boolean", "default": false},
        "writeOnly": {"type": "boolean", "default": false},
        "enum": {"type": "array", "items": true},
        "contentMediaType": {"type": "string"},
        "contentEncoding": {"type": "string"},
        "if": {"$ref": "#"},
        "then": {"$ref": "#"},
        "else": {"$ref": "#"}
    },
    "default": true
});

/* ---- 2019-09 ---- */

static const char m19[] = J({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/schema",
    "$vocabulary": {
        "https://json-schema.org/draft/2019-09/vocab/core": true,
        "https://json-schema.org/draft/2019-09/vocab/applicator": true,
        "https://json-schema.org/draft/2019-09/vocab/validation": true,
        "https://json-schema.org/draft/2019-09/vocab/meta-data": true,
        "https://json-schema.org/draft/2019-09/vocab/format": false,
        "https://json-schema.org/draft/2019-09/vocab/content": true
    },
    "$recursiveAnchor": true,
    "allOf": [
        {"$ref": "meta/core"}, {"$ref": "meta/applicator"}, {"$ref": "meta/validation"},
        {"$ref": "meta/meta-data"}, {"$ref": "meta/format"}, {"$ref": "meta/content"}
    ],
    "type": ["object", "boolean"],
    "properties": {
        "definitions": {"type": "object", "additionalProperties": {"$recursiveRef": "#"}, "default": {}},
        "dependencies": {"type": "object", "additionalProperties": {"anyOf": [
            {"$recursiveRef": "#"}, {"$ref": "meta/validation#/$defs/stringArray"}]}}
    }
});

static const char m19_core[] = J({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/core",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/core": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {
        "$id": {"type": "string", "format": "uri-reference", "pattern": "^[^#]*#?$"},
        "$schema": {"type": "string", "format": "uri"},
        "$anchor": {"type": "string", "pattern": "^[A-Za-z][-A-Za-z0-9.:_]*$"},
        "$ref": {"type": "string", "format": "uri-reference"},
        "$recursiveRef": {"type": "string", "format": "uri-reference"},
        "$recursiveAnchor": {"type": "boolean", "default": false},
        "$vocabulary": {"type": "object", "propertyNames": {"type": "string", "format": "uri"},
                        "additionalProperties": {"type": "boolean"}},
        "$comment": {"type": "string"},
        "$defs": {"type": "object", "additionalProperties": {"$recursiveRef": "#"}, "default": {}}
    }
});

static const char m19_applicator[] = J({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/applicator",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/applicator": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {
        "additionalItems": {"$recursiveRef": "#"},
        "unevaluatedItems": {"$recursiveRef": "#"},
        "items": {"anyOf": [{"$recursiveRef": "#"}, {"$ref": "#/$defs/schemaArray"}]},
        "contains": {"$recursiveRef": "#"},
        "additionalProperties": {"$recursiveRef": "#"},
        "unevaluatedProperties": {"$recursiveRef": "#"},
        "properties": {"type": "object", "additionalProperties": {"$recursiveRef": "#"}, "default": {}},
        "patternProperties": {"type": "object", "additionalProperties": {"$recursiveRef": "#"},
                              "propertyNames": {"format": "regex"}, "default": {}},
        "dependentSchemas": {"type": "object", "additionalProperties": {"$recursiveRef": "#"}},
        "propertyNames": {"$recursiveRef": "#"},
        "if": {"$recursiveRef": "#"},
        "then": {"$recursiveRef": "#"},
        "else": {"$recursiveRef": "#"},
        "allOf": {"$ref": "#/$defs/schemaArray"},
        "anyOf": {"$ref": "#/$defs/schemaArray"},
        "oneOf": {"$ref": "#/$defs/schemaArray"},
        "not": {"$recursiveRef": "#"}
    },
    "$defs": {"schemaArray": {"type": "array", "minItems": 1, "items": {"$recursiveRef": "#"}}}
});

#define VALIDATION_PROPS \
        "multipleOf": {"type": "number", "exclusiveMinimum": 0}, \
        "maximum": {"type": "number"}, \
        "exclusiveMaximum": {"type": "number"}, \
        "minimum": {"type": "number"}, \
        "exclusiveMinimum": {"type": "number"}, \
        "maxLength": {"$ref": "#/$defs/nonNegativeInteger"}, \
        "minLength": {"$ref": "#/$defs/nonNegativeIntegerDefault0"}, \
        "pattern": {"type": "string", "format": "regex"}, \
        "maxItems": {"$ref": "#/$defs/nonNegativeInteger"}, \
        "minItems": {"$ref": "#/$defs/nonNegativeIntegerDefault0"}, \
        "uniqueItems": {"type": "boolean", "default": false}, \
        "maxContains": {"$ref": "#/$defs/nonNegativeInteger"}, \
        "minContains": {"$ref": "#/$defs/nonNegativeInteger", "default": 1}, \
        "maxProperties": {"$ref": "#/$defs/nonNegativeInteger"}, \
        "minProperties": {"$ref": "#/$defs/nonNegativeIntegerDefault0"}, \
        "required": {"$ref": "#/$defs/stringArray"}, \
        "dependentRequired": {"type": "object", "additionalProperties": {"$ref": "#/$defs/stringArray"}}, \
        "const": true, \
        "enum": {"type": "array", "items": true}, \
        "type": {"anyOf": [ \
            {"$ref": "#/$defs/simpleTypes"}, \
            {"type": "array", "items": {"$ref": "#/$defs/simpleTypes"}, "minItems": 1, "uniqueItems": true}]}

#define VALIDATION_DEFS \
    "$defs": { \
        "nonNegativeInteger": {"type": "integer", "minimum": 0}, \
        "nonNegativeIntegerDefault0": {"$ref": "#/$defs/nonNegativeInteger", "default": 0}, \
        "simpleTypes": {"enum": ["array", "boolean", "integer", "null", "number", "object", "string"]}, \
        "stringArray": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "default": []} \
    }

static const char m19_validation[] = JX({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/validation",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/validation": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {VALIDATION_PROPS},
    VALIDATION_DEFS
});

#define METADATA_PROPS \
        "title": {"type": "string"}, \
        "description": {"type": "string"}, \
        "default": true, \
        "deprecated": {"type": "boolean", "default": false}, \
        "readOnly": {"type": "boolean", "default": false}, \
        "writeOnly": {"type": "boolean", "default": false}, \
        "examples": {"type": "array", "items": true}

static const char m19_metadata[] = JX({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/meta-data",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/meta-data": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {METADATA_PROPS}
});

static const char m19_format[] = J({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/format",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/format": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {"format": {"type": "string"}}
});

static const char m19_content[] = J({
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://json-schema.org/draft/2019-09/meta/content",
    "$vocabulary": {"https://json-schema.org/draft/2019-09/vocab/content": true},
    "$recursiveAnchor": true,
    "type": ["object", "boolean"],
    "properties": {
        "contentMediaType": {"type": "string"},
        "contentEncoding": {"type": "string"},
        "contentSchema": {"$recursiveRef": "#"}
    }
});

/* ---- 2020-12 ---- */

static const char m20[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/schema",
    "$vocabulary": {
        "https://json-schema.org/draft/2020-12/vocab/core": true,
        "https://json-schema.org/draft/2020-12/vocab/applicator": true,
        "https://json-schema.org/draft/2020-12/vocab/unevaluated": true,
        "https://json-schema.org/draft/2020-12/vocab/validation": true,
        "https://json-schema.org/draft/2020-12/vocab/meta-data": true,
        "https://json-schema.org/draft/2020-12/vocab/format-annotation": true,
        "https://json-schema.org/draft/2020-12/vocab/content": true
    },
    "$dynamicAnchor": "meta",
    "allOf": [
        {"$ref": "meta/core"}, {"$ref": "meta/applicator"}, {"$ref": "meta/unevaluated"},
        {"$ref": "meta/validation"}, {"$ref": "meta/meta-data"}, {"$ref": "meta/format-annotation"},
        {"$ref": "meta/content"}
    ],
    "type": ["object", "boolean"],
    "properties": {
        "definitions": {"type": "object", "additionalProperties": {"$dynamicRef": "#meta"}, "default": {}},
        "dependencies": {"type": "object", "additionalProperties": {"anyOf": [
            {"$dynamicRef": "#meta"}, {"$ref": "meta/validation#/$defs/stringArray"}]}},
        "$recursiveAnchor": {"$ref": "meta/core#/$defs/anchorString"},
        "$recursiveRef": {"$ref": "meta/core#/$defs/uriReferenceString"}
    }
});

static const char m20_core[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/core",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {
        "$id": {"$ref": "#/$defs/uriReferenceString", "pattern": "^[^#]*#?$"},
        "$schema": {"$ref": "#/$defs/uriString"},
        "$ref": {"$ref": "#/$defs/uriReferenceString"},
        "$anchor": {"$ref": "#/$defs/anchorString"},
        "$dynamicRef": {"$ref": "#/$defs/uriReferenceString"},
        "$dynamicAnchor": {"$ref": "#/$defs/anchorString"},
        "$vocabulary": {"type": "object", "propertyNames": {"$ref": "#/$defs/uriString"},
                        "additionalProperties": {"type": "boolean"}},
        "$comment": {"type": "string"},
        "$defs": {"type": "object", "additionalProperties": {"$dynamicRef": "#meta"}}
    },
    "$defs": {
        "anchorString": {"type": "string", "pattern": "^[A-Za-z_][-A-Za-z0-9._]*$"},
        "uriString": {"type": "string", "format": "uri"},
        "uriReferenceString": {"type": "string", "format": "uri-reference"}
    }
});

static const char m20_applicator[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/applicator",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/applicator": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {
        "prefixItems": {"$ref": "#/$defs/schemaArray"},
        "items": {"$dynamicRef": "#meta"},
        "contains": {"$dynamicRef": "#meta"},
        "additionalProperties": {"$dynamicRef": "#meta"},
        "properties": {"type": "object", "additionalProperties": {"$dynamicRef": "#meta"}, "default": {}},
        "patternProperties": {"type": "object", "additionalProperties": {"$dynamicRef": "#meta"},
                              "propertyNames": {"format": "regex"}, "default": {}},
        "dependentSchemas": {"type": "object", "additionalProperties": {"$dynamicRef": "#meta"}, "default": {}},
        "propertyNames": {"$dynamicRef": "#meta"},
        "if": {"$dynamicRef": "#meta"},
        "then": {"$dynamicRef": "#meta"},
        "else": {"$dynamicRef": "#meta"},
        "allOf": {"$ref": "#/$defs/schemaArray"},
        "anyOf": {"$ref": "#/$defs/schemaArray"},
        "oneOf": {"$ref": "#/$defs/schemaArray"},
        "not": {"$dynamicRef": "#meta"}
    },
    "$defs": {"schemaArray": {"type": "array", "minItems": 1, "items": {"$dynamicRef": "#meta"}}}
});

static const char m20_unevaluated[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/unevaluated",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/unevaluated": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {
        "unevaluatedItems": {"$dynamicRef": "#meta"},
        "unevaluatedProperties": {"$dynamicRef": "#meta"}
    }
});

static const char m20_validation[] = JX({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/validation",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/validation": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {VALIDATION_PROPS},
    VALIDATION_DEFS
});

static const char m20_metadata[] = JX({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/meta-data",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/meta-data": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {METADATA_PROPS}
});

static const char m20_format_annotation[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/format-annotation",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/format-annotation": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {"format": {"type": "string"}}
});

static const char m20_format_assertion[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/format-assertion",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/format-assertion": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {"format": {"type": "string"}}
});

static const char m20_content[] = J({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/content",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/content": true},
    "$dynamicAnchor": "meta",
    "type": ["object", "boolean"],
    "properties": {
        "contentEncoding": {"type": "string"},
        "contentMediaType": {"type": "string"},
        "contentSchema": {"$dynamicRef": "#meta"}
    }
});

static const struct {
    const char *uri;
    const char *text;
} metas[] = {
    {"http://json-schema.org/draft-04/schema", d4},
    {"http://json-schema.org/draft-06/schema", d6},
    {"http://json-schema.org/draft-07/schema", d7},
    {"https://json-schema.org/draft/2019-09/schema", m19},
    {"https://json-schema.org/draft/2019-09/meta/core", m19_core},
    {"https://json-schema.org/draft/2019-09/meta/applicator", m19_applicator},
    {"https://json-schema.org/draft/2019-09/meta/validation", m19_validation},
    {"https://json-schema.org/draft/2019-09/meta/meta-data", m19_metadata},
    {"https://json-schema.org/draft/2019-09/meta/format", m19_format},
    {"https://json-schema.org/draft/2019-09/meta/content", m19_content},
    {"https://json-schema.org/draft/2020-12/schema", m20},
    {"https://json-schema.org/draft/2020-12/meta/core", m20_core},
    {"https://json-schema.org/draft/2020-12/meta/applicator", m20_applicator},
    {"https://json-schema.org/draft/2020-12/meta/unevaluated", m20_unevaluated},
    {"https://json-schema.org/draft/2020-12/meta/validation", m20_validation},
    {"https://json-schema.org/draft/2020-12/meta/meta-data", m20_metadata},
    {"https://json-schema.org/draft/2020-12/meta/format-annotation", m20_format_annotation},
    {"https://json-schema.org/draft/2020-12/meta/format-assertion", m20_format_assertion},
    {"https://json-schema.org/draft/2020-12/meta/content", m20_content},
};

const char *forge_schema_meta(const char *uri)
{
    for (size_t i = 0; i < sizeof metas / sizeof *metas; i++)
        if (!strcmp(metas[i].uri, uri))
            return metas[i].text;
    return NULL;
}
