/* Fast JavaScript number formatting (Number.prototype.toString), for hot output paths.
 * Same text as forge_json_number (data/json.h) for every double, at a fraction of the cost:
 * whole numbers are written directly, others need at most three formatting attempts. */
#ifndef FORGE_DATA_JSNUM_H
#define FORGE_DATA_JSNUM_H

/* Writes <d> as JavaScript's String(d) into <out> (at least 32 bytes). Returns <out>. */
char *forge_jsnum_format(double d, char *out);
#endif
