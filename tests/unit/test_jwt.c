/* Unit tests for server/jwt: HS256 tokens made here with OpenSSL's HMAC, and every way a token
 * can be wrong. */
#include "test.h"
#include "base/alloc.h"
#include "server/jwt.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

static const char secret[] = "0123456789abcdef0123456789abcdef";

static void b64url(const unsigned char *in, size_t n, char *out)
{
    int len = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
    for (int i = 0; i < len; i++) {
        if (out[i] == '+')
            out[i] = '-';
        else if (out[i] == '/')
            out[i] = '_';
    }
    while (len > 0 && out[len - 1] == '=')
        len--;
    out[len] = '\0';
}

/* header.claims.HMAC(key) */
static void mint(const char *header, const char *claims, const char *key, char *out)
{
    char h[512], c[512], sig[128];
    b64url((const unsigned char *)header, strlen(header), h);
    b64url((const unsigned char *)claims, strlen(claims), c);
    sprintf(out, "%s.%s", h, c);
    unsigned char mac[64];
    unsigned int ml = 0;
    HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)out, strlen(out), mac, &ml);
    b64url(mac, ml, sig);
    strcat(out, ".");
    strcat(out, sig);
}

static int verify(const struct forge_jwt_key *k, const char *tok, double now, char *why)
{
    cJSON *claims = NULL;
    struct forge_err err = {0};
    int rc = forge_jwt_verify(k, tok, now, 30, &claims, &err);
    memcpy(why, err.msg, 255);
    why[255] = 0;
    cJSON_Delete(claims);
    return rc;
}

TEST(hs256)
{
    struct forge_jwt_key *k = NULL;
    struct forge_err err = {0};
    CHECK(forge_jwt_key_hs256("short", 5, &k, &err) == FORGE_EINVAL);
    CHECK_INT(forge_jwt_key_hs256(secret, strlen(secret), &k, &err), 0);
    char tok[2048], why[256];
    const char *hs = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
    mint(hs, "{\"sub\":\"alice\",\"exp\":1000}", secret, tok);
    cJSON *claims = NULL;
    CHECK_INT(forge_jwt_verify(k, tok, 900, 30, &claims, &err), 0);
    CHECK_STR(cJSON_GetObjectItem(claims, "sub")->valuestring, "alice");
    cJSON_Delete(claims);
    CHECK_INT(verify(k, tok, 1029, why), 0); /* within the leeway */
    CHECK(verify(k, tok, 1030, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token has expired");
    mint(hs, "{\"sub\":\"a\",\"exp\":1000,\"nbf\":950}", secret, tok);
    CHECK(verify(k, tok, 900, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token is not valid yet (nbf)");
    CHECK_INT(verify(k, tok, 921, why), 0);
    mint(hs, "{\"sub\":\"a\"}", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token has no numeric exp claim");
    mint(hs, "{\"sub\":\"a\",\"exp\":\"1000\"}", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    mint(hs, "{\"sub\":\"a\",\"exp\":1000}", "another-secret-0123456789abcdefghij", tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token's signature does not verify");
    mint("{\"alg\":\"none\"}", "{\"sub\":\"a\",\"exp\":1000}", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token's algorithm 'none' is not the configured HS256");
    mint("{\"alg\":\"HS256\",\"crit\":[\"x\"]}", "{\"sub\":\"a\",\"exp\":1000}", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    mint("[1]", "{\"sub\":\"a\",\"exp\":1000}", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    mint(hs, "[1,2]", secret, tok);
    CHECK(verify(k, tok, 0, why) == FORGE_EINVAL);
    CHECK_STR(why, "the token's claims are not a base64url JSON object");
    /* signature cut, extended, padded, in standard base64 */
    mint(hs, "{\"sub\":\"a\",\"exp\":1000}", secret, tok);
    char bad[2100];
    snprintf(bad, sizeof bad, "%.*s", (int)strlen(tok) - 1, tok);
    CHECK(verify(k, bad, 0, why) == FORGE_EINVAL);
    snprintf(bad, sizeof bad, "%sA", tok);
    CHECK(verify(k, bad, 0, why) == FORGE_EINVAL);
    snprintf(bad, sizeof bad, "%s=", tok);
    CHECK(verify(k, bad, 0, why) == FORGE_EINVAL);
    snprintf(bad, sizeof bad, "%s.x", tok);
    CHECK(verify(k, bad, 0, why) == FORGE_EINVAL);
    CHECK(verify(k, "", 0, why) == FORGE_EINVAL);
    CHECK(verify(k, "..", 0, why) == FORGE_EINVAL);
    CHECK(verify(k, "a.b", 0, why) == FORGE_EINVAL);
    /* trust mode: no signature check, claims still checked */
    mint("{\"alg\":\"none\"}", "{\"sub\":\"a\",\"exp\":1000}", "x", tok);
    CHECK_INT(verify(NULL, tok, 0, why), 0);
    CHECK(verify(NULL, tok, 2000, why) == FORGE_EINVAL);
    forge_jwt_key_free(k);
    forge_jwt_key_free(NULL);
}

TEST(rs256_keys)
{
    struct forge_jwt_key *k = NULL;
    struct forge_err err = {0};
    CHECK(forge_jwt_key_rs256("not a key", 9, "k.pem", &k, &err) == FORGE_EINVAL);
    CHECK_STR(err.msg, "k.pem: not a PEM public key or certificate");
    CHECK(k == NULL);
}

int main(void)
{
    RUN(hs256);
    RUN(rs256_keys);
    return TEST_DONE();
}
