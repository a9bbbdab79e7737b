/* libpq, loaded on first use: only a PostgreSQL store needs it, and linking it would cost every
 * forge run the loading of its dependencies (Kerberos, LDAP, SASL, TLS) at start-up. These
 * definitions of the libpq functions forge uses forward to libpq.so.5; store_pg.c calls
 * forge_pq_load before any of them. */
#include "store/pq_shim.h"
#include "base/dl.h"

#include <libpq-fe.h>

/* X: functions that return a value; V: functions that return nothing */
#define PQ_FUNCS(X, V) \
    X(PGconn *, PQconnectdb, (const char *c), (c)) \
    X(ConnStatusType, PQstatus, (const PGconn *c), (c)) \
    V(PQreset, (PGconn *c), (c)) \
    V(PQfinish, (PGconn *c), (c)) \
    X(char *, PQerrorMessage, (const PGconn *c), (c)) \
    X(PGresult *, PQexec, (PGconn *c, const char *q), (c, q)) \
    X(PGresult *, PQexecParams, \
      (PGconn *c, const char *q, int n, const Oid *t, const char *const *v, const int *l, const int *f, int rf), \
      (c, q, n, t, v, l, f, rf)) \
    X(ExecStatusType, PQresultStatus, (const PGresult *r), (r)) \
    X(char *, PQresultErrorMessage, (const PGresult *r), (r)) \
    V(PQclear, (PGresult *r), (r)) \
    X(int, PQntuples, (const PGresult *r), (r)) \
    X(char *, PQgetvalue, (const PGresult *r, int i, int j), (r, i, j)) \
    X(int, PQgetisnull, (const PGresult *r, int i, int j), (r, i, j)) \
    X(char *, PQcmdTuples, (PGresult *r), (r)) \
    X(PQconninfoOption *, PQconninfoParse, (const char *c, char **e), (c, e)) \
    V(PQconninfoFree, (PQconninfoOption *o), (o)) \
    V(PQfreemem, (void *p), (p))

static struct {
    PQ_FUNCS(FORGE_DL_FIELD, FORGE_DL_VFIELD)
} fn;

static const char *const names[] = {PQ_FUNCS(FORGE_DL_NAME, FORGE_DL_VNAME)};
static void *const slots[] = {PQ_FUNCS(FORGE_DL_SLOT, FORGE_DL_VSLOT)};
static struct forge_dl dl = FORGE_DL_INIT("libpq.so.5", "libpq", "libpq5", names, slots, NULL);

int forge_pq_load(struct forge_err *err)
{
    return forge_dl_load(&dl, err);
}

/* Forwarders: callers have loaded the library (forge_pq_load) before they hold a connection. */
PQ_FUNCS(FORGE_DL_FWD, FORGE_DL_VFWD)
