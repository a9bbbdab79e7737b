/* Libraries loaded on first use. A library linked to the binary costs every forge run the
 * dynamic loader's work at start-up: mapping and relocating it and every library it depends
 * on. libcurl, libpq and libmicrohttpd bring about thirty such dependencies (TLS, Kerberos,
 * LDAP, SASL), which cost a run that never touches the network, PostgreSQL or the server
 * several milliseconds, most of its start-up. Their shims (net/curl_shim, store/pq_shim,
 * server/mhd_shim) define the functions forge calls and forward them to the library, opened
 * here the first time one is needed. */
#ifndef FORGE_BASE_DL_H
#define FORGE_BASE_DL_H
#include <stddef.h>

/* Opens <soname> and looks up the <n> functions named in <names>, storing each address in the
 * function pointer that <slots>[i] points to. Returns the library's handle (kept open for the
 * life of the process), or NULL with <msg> (of <cap> bytes) saying what could not be loaded,
 * why, and which Debian package provides it; <what> names the library in that message. */
void *forge_dl_open(const char *soname, const char *what, const char *package, const char *const *names,
                    void *const *slots, size_t n, char *msg, size_t cap);
#endif
