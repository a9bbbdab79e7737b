/* On-disk response cache and SHA-256. */
#include "model/cache.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "data/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sha256 {
    uint32_t h[8];
    uint64_t n;
    unsigned char buf[64];
    size_t used;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, h;
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d, s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->n = 0;
    s->used = 0;
}

static void sha_add(struct sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->n += len;
    while (len > 0) {
        size_t take = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->buf + s->used, p, take);
        s->used += take;
        p += take;
        len -= take;
        if (s->used == 64) {
            block(s, s->buf);
            s->used = 0;
        }
    }
}

static void sha_hex(struct sha256 *s, char hex[65])
{
    uint64_t bits = s->n * 8;
    unsigned char pad = 0x80, zero = 0, lenb[8];
    sha_add(s, &pad, 1);
    while (s->used != 56)
        sha_add(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_add(s, lenb, 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

void forge_sha256_hex(const void *data, size_t len, char hex[65])
{
    struct sha256 s;
    sha_init(&s);
    sha_add(&s, data, len);
    sha_hex(&s, hex);
}

void forge_cache_key(const char *provider, const char *base_url, const char *model,
                     const char *body, char hex[65])
{
    struct sha256 s;
    sha_init(&s);
    const char *parts[] = {"forge-cache-v1", provider, base_url, model, body};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        sha_add(&s, parts[i] ? parts[i] : "", strlen(parts[i] ? parts[i] : "") + 1); /* NUL separates */
    sha_hex(&s, hex);
}

char *forge_cache_default_dir(void)
{
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x)
        return forge_path_join(x, "forge/models");
    const char *home = getenv("HOME");
    if (home && *home)
        return forge_path_join(home, ".cache/forge/models");
    return NULL;
}

static char *entry_path(const char *dir, const char *key, int folder_only)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (forge_buf_addf(&b, "%s/%.2s", dir, key) || (!folder_only && forge_buf_addf(&b, "/%s.json", key))) {
        forge_buf_free(&b);
        return NULL;
    }
    return forge_buf_take(&b);
}

cJSON *forge_cache_get(const char *dir, const char *key)
{
    char *path = entry_path(dir, key, 0);
    if (!path)
        return NULL;
    struct forge_err e;
    forge_err_clear(&e);
    char *text = NULL;
    size_t len = 0;
    cJSON *v = NULL;
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        if (forge_file_read(path, FORGE_FILE_LIMIT, &text, &len, &e) == 0)
            v = forge_json_parse(text, len, path, &e);
    }
    if (v && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v, "message"))) {
        cJSON_Delete(v);
        v = NULL;
    }
    forge_free(text);
    forge_free(path);
    return v;
}

int forge_cache_put(const char *dir, const char *key, const cJSON *resp, struct forge_err *err)
{
    int rc = 0;
    char *folder = entry_path(dir, key, 1), *path = entry_path(dir, key, 0), *text = NULL;
    if (!folder || !path || !(text = forge_json_print(resp, 0))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory writing the cache");
        goto out;
    }
    /* Answers may hold what a user would not share: only the user may read the cache. */
    if ((rc = forge_mkdir_p_mode(folder, 0700, err)))
        goto out;
    rc = forge_file_write_atomic_mode(path, text, strlen(text), 0600, err);
out:
    forge_free(folder);
    forge_free(path);
    forge_free(text);
    return rc;
}
