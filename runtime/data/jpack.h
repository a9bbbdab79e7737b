/* Packed trees: a compact binary form of a cJSON tree, for data that forge writes to a private
 * temporary file and reads back (a forge.suite's cases). Reading a packed tree gives the tree
 * forge_json_parse gives for the tree's cJSON_PrintUnformatted text, node for node (numbers as
 * cJSON 1.7.15 prints them, "%1.15g" when that is close enough, so 0.30000000000000004 comes
 * back as 0.3; true with valueint 1), for a fraction of the instructions of printing and parsing. */
#ifndef FORGE_DATA_JPACK_H
#define FORGE_DATA_JPACK_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include "base/buf.h"

/* Appends the packed form of <v> (borrowed) to <out> and sets *json_len to the length of
 * cJSON_PrintUnformatted(v). Returns 0; 1 when the packed form would not read back as the
 * printed text does (a string or key that is not UTF-8, more values than
 * forge_json_node_limit(), nesting deeper than 512 levels, a raw or reference node), with
 * <out> as it was: print the tree instead; FORGE_ENOMEM or FORGE_ELIMIT from <out>. */
int forge_jpack(const cJSON *v, struct forge_buf *out, size_t *json_len);

/* The tree packed in the <n> bytes at <p> (a new tree; free with cJSON_Delete), or NULL when out
 * of memory or when the bytes are not one whole packed tree. */
cJSON *forge_junpack(const char *p, size_t n);
#endif
