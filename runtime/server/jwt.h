/* JSON Web Tokens for the service's user tier: HS256 and RS256 checked with OpenSSL (HMAC and
 * RSA signatures, constant-time comparison), claims parsed with cJSON. The algorithm comes
 * from the key, never from the token: a token whose header names another algorithm ("none",
 * HS256 against an RSA key, ...) is refused. No Lua here. */
#ifndef FORGE_SERVER_JWT_H
#define FORGE_SERVER_JWT_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_jwt_key;

/* An HS256 key from the shared secret (<len> bytes, at least 32). */
int forge_jwt_key_hs256(const char *secret, size_t len, struct forge_jwt_key **out, struct forge_err *err);
/* An RS256 key from a PEM public key ("BEGIN PUBLIC KEY", as `openssl rsa -pubout` writes it) or certificate; RSA of
 * at least 2048 bits. <where> names the file in messages. */
int forge_jwt_key_rs256(const char *pem, size_t len, const char *where, struct forge_jwt_key **out,
                        struct forge_err *err);
void forge_jwt_key_free(struct forge_jwt_key *k);

/* Checks <token>: three base64url parts, a JSON header whose alg is the key's, a valid
 * signature, a JSON object of claims with a numeric exp after <now> - <leeway> and, when
 * present, nbf before <now> + <leeway>. With <key> NULL the signature is not checked (trust
 * mode) but the rest is. Returns 0 and *claims (new), or FORGE_EINVAL with the reason in
 * <err> (never the token or the key). */
int forge_jwt_verify(const struct forge_jwt_key *key, const char *token, double now, double leeway,
                     cJSON **claims, struct forge_err *err);
#endif
