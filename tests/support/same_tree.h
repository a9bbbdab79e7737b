/* Two cJSON trees are the same tree: the same kinds, values bit for bit, keys, order and links
 * (each child's prev is the one before it, the first child's prev the last, as cJSON links them
 * and as appending relies on). For the tests and fuzz targets that compare a reader's or
 * unpacker's tree with cJSON's own. */
#ifndef FORGE_TEST_SAME_TREE_H
#define FORGE_TEST_SAME_TREE_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>

static bool same_tree(const cJSON *a, const cJSON *b)
{
    if (a->type != b->type || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0)
        return false;
    if (!a->valuestring != !b->valuestring || (a->valuestring && strcmp(a->valuestring, b->valuestring)))
        return false;
    if (!a->string != !b->string || (a->string && strcmp(a->string, b->string)))
        return false;
    const cJSON *x = a->child, *y = b->child, *px = NULL, *py = NULL;
    for (; x && y; px = x, py = y, x = x->next, y = y->next)
        if ((px && (x->prev != px || y->prev != py)) || !same_tree(x, y))
            return false;
    return !x && !y && (!a->child || (a->child->prev == px && b->child->prev == py));
}
#endif
