/* JWT verification on OpenSSL. */
#include "server/jwt.h"
#include "base/alloc.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <string.h>

#define MAX_TOKEN 16384

struct forge_jwt_key {
    int rsa;               /* 0: HS256, 1: RS256 */
    unsigned char *secret; /* HS256 */
    size_t len;
    EVP_PKEY *pkey;        /* RS256 */
};

int forge_jwt_key_hs256(const char *secret, size_t len, struct forge_jwt_key **out, struct forge_err *err)
{
    *out = NULL;
    if (len < 32)
        return forge_err_set(err, FORGE_EINVAL, "the HS256 secret has %zu bytes; at least 32 are needed", len);
    struct forge_jwt_key *k = forge_calloc(1, sizeof *k);
    if (!k || !(k->secret = forge_malloc(len))) {
        forge_free(k);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    memcpy(k->secret, secret, len);
    k->len = len;
    *out = k;
    return 0;
}

int forge_jwt_key_rs256(const char *pem, size_t len, const char *where, struct forge_jwt_key **out,
                        struct forge_err *err)
{
    *out = NULL;
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    if (!b)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    EVP_PKEY *pk = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL);
    if (!pk) {
        (void)BIO_reset(b);
        X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);
        if (x) {
            pk = X509_get_pubkey(x);
            X509_free(x);
        }
    }
    BIO_free(b);
    if (!pk)
        return forge_err_set(err, FORGE_EINVAL, "%s: not a PEM public key or certificate", where);
    if (EVP_PKEY_base_id(pk) != EVP_PKEY_RSA || EVP_PKEY_bits(pk) < 2048) {
        EVP_PKEY_free(pk);
        return forge_err_set(err, FORGE_EINVAL, "%s: RS256 needs an RSA public key of at least 2048 bits", where);
    }
    struct forge_jwt_key *k = forge_calloc(1, sizeof *k);
    if (!k) {
        EVP_PKEY_free(pk);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    k->rsa = 1;
    k->pkey = pk;
    *out = k;
    return 0;
}

void forge_jwt_key_free(struct forge_jwt_key *k)
{
    if (!k)
        return;
    if (k->secret) {
        OPENSSL_cleanse(k->secret, k->len);
        forge_free(k->secret);
    }
    EVP_PKEY_free(k->pkey);
    forge_free(k);
}

/* Decodes base64url (no padding) <in>[0..n) into a new buffer (NUL-terminated); NULL when it
 * is not base64url. */
static unsigned char *b64url(const char *in, size_t n, size_t *outlen)
{
    if (n % 4 == 1)
        return NULL;
    size_t padded = (n + 3) / 4 * 4;
    char *t = forge_malloc(padded + 1);
    unsigned char *out = forge_malloc(padded / 4 * 3 + 1);
    if (!t || !out)
        goto bad;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '-')
            c = '+';
        else if (c == '_')
            c = '/';
        else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            goto bad; /* '+', '/', '=' and anything else are not base64url */
        t[i] = c;
    }
    for (size_t i = n; i < padded; i++)
        t[i] = '=';
    t[padded] = '\0';
    int len = padded ? EVP_DecodeBlock(out, (const unsigned char *)t, (int)padded) : 0;
    if (len < 0)
        goto bad;
    len -= (int)(padded - n); /* EVP_DecodeBlock counts the padding as zero bytes */
    out[len] = '\0';
    *outlen = (size_t)len;
    forge_free(t);
    return out;
bad:
    forge_free(t);
    forge_free(out);
    return NULL;
}

static cJSON *json_part(const char *p, size_t n)
{
    size_t len = 0;
    unsigned char *raw = b64url(p, n, &len);
    if (!raw)
        return NULL;
    cJSON *j = strlen((char *)raw) == len ? cJSON_ParseWithLength((const char *)raw, len) : NULL;
    forge_free(raw);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static int check_sig(const struct forge_jwt_key *k, const char *signed_part, size_t slen, const unsigned char *sig,
                     size_t siglen)
{
    if (!k->rsa) {
        unsigned char mac[EVP_MAX_MD_SIZE];
        unsigned int maclen = 0;
        if (!HMAC(EVP_sha256(), k->secret, (int)k->len, (const unsigned char *)signed_part, slen, mac, &maclen))
            return 0;
        return siglen == maclen && CRYPTO_memcmp(mac, sig, maclen) == 0;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, k->pkey) == 1 &&
             EVP_DigestVerify(ctx, sig, siglen, (const unsigned char *)signed_part, slen) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

int forge_jwt_verify(const struct forge_jwt_key *key, const char *token, double now, double leeway,
                     cJSON **claims, struct forge_err *err)
{
    *claims = NULL;
    size_t n = strlen(token);
    if (n > MAX_TOKEN)
        return forge_err_set(err, FORGE_EINVAL, "the token is longer than %d bytes", MAX_TOKEN);
    const char *d1 = strchr(token, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '.'))
        return forge_err_set(err, FORGE_EINVAL, "not a JWT (expected three dot-separated parts)");
    cJSON *hdr = json_part(token, (size_t)(d1 - token));
    if (!hdr)
        return forge_err_set(err, FORGE_EINVAL, "the token's header is not base64url JSON");
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(hdr, "alg");
    const char *want = key ? (key->rsa ? "RS256" : "HS256") : NULL;
    int rc = 0;
    if (!cJSON_IsString(alg))
        rc = forge_err_set(err, FORGE_EINVAL, "the token's header has no alg");
    else if (want && strcmp(alg->valuestring, want) != 0)
        rc = forge_err_set(err, FORGE_EINVAL, "the token's algorithm '%.16s' is not the configured %s",
                           alg->valuestring, want);
    else if (cJSON_GetObjectItemCaseSensitive(hdr, "crit"))
        rc = forge_err_set(err, FORGE_EINVAL, "the token's header has critical extensions (crit), which forge "
                           "does not support");
    cJSON_Delete(hdr);
    if (rc)
        return rc;
    if (key) {
        size_t siglen = 0;
        unsigned char *sig = b64url(d2 + 1, strlen(d2 + 1), &siglen);
        if (!sig || !siglen)
            rc = forge_err_set(err, FORGE_EINVAL, "the token's signature is not base64url");
        else if (!check_sig(key, token, (size_t)(d2 - token), sig, siglen))
            rc = forge_err_set(err, FORGE_EINVAL, "the token's signature does not verify");
        forge_free(sig);
        if (rc)
            return rc;
    }
    cJSON *c = json_part(d1 + 1, (size_t)(d2 - d1 - 1));
    if (!c)
        return forge_err_set(err, FORGE_EINVAL, "the token's claims are not a base64url JSON object");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(c, "exp");
    const cJSON *nbf = cJSON_GetObjectItemCaseSensitive(c, "nbf");
    if (!cJSON_IsNumber(exp))
        rc = forge_err_set(err, FORGE_EINVAL, "the token has no numeric exp claim");
    else if (exp->valuedouble + leeway <= now)
        rc = forge_err_set(err, FORGE_EINVAL, "the token has expired");
    else if (nbf && !cJSON_IsNumber(nbf))
        rc = forge_err_set(err, FORGE_EINVAL, "the token's nbf claim is not a number");
    else if (nbf && nbf->valuedouble - leeway > now)
        rc = forge_err_set(err, FORGE_EINVAL, "the token is not valid yet (nbf)");
    if (rc) {
        cJSON_Delete(c);
        return rc;
    }
    *claims = c;
    return 0;
}
