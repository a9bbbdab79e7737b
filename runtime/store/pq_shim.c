/* libpq, loaded on first use: only a PostgreSQL store needs it, and linking it would cost every
 * forge run the loading of its dependencies (Kerberos, LDAP, SASL, TLS) at start-up. These
 * definitions of the libpq functions forge uses forward to libpq.so.5; store_pg.c calls
 * forge_pq_load before any of them. */
#include "store/pq_shim.h"
#include "base/dl.h"

#include <libpq-fe.h>
#include <pthread.h>

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
#define FIELD(ret, name, params, args) ret(*name) params;
#define VFIELD(name, params, args) void(*name) params;
    PQ_FUNCS(FIELD, VFIELD)
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;
static char load_error[512];

static void load(void)
{
#define NAME(ret, name, params, args) #name,
#define VNAME(name, params, args) #name,
    static const char *const names[] = {PQ_FUNCS(NAME, VNAME)};
#define SLOT(ret, name, params, args) (void *)&fn.name,
#define VSLOT(name, params, args) (void *)&fn.name,
    void *const slots[] = {PQ_FUNCS(SLOT, VSLOT)};
    lib = forge_dl_open("libpq.so.5", "libpq", "libpq5", names, slots, sizeof names / sizeof names[0], load_error,
                        sizeof load_error);
}

int forge_pq_load(struct forge_err *err)
{
    pthread_once(&once, load);
    return lib ? 0 : forge_err_set(err, FORGE_EIO, "%s", load_error);
}

/* Forwarders: callers have loaded the library (forge_pq_load) before they hold a connection. */
#define FWD(ret, name, params, args) \
    ret name params { return fn.name args; }
#define VFWD(name, params, args) \
    void name params { fn.name args; }
PQ_FUNCS(FWD, VFWD)
