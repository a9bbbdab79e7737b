/* Libraries loaded on first use (see dl.h). */
#include "base/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void open_lib(struct forge_dl *d)
{
    void *lib = dlopen(d->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(d->msg, sizeof d->msg, "cannot load %s (%s): %s; install Debian's %s package", d->what, d->soname,
                 why ? why : "not found", d->package);
        return;
    }
    for (size_t i = 0; i < d->n; i++) {
        void *f = dlsym(lib, d->names[i]);
        if (!f) {
            snprintf(d->msg, sizeof d->msg, "%s (%s) lacks %s, which forge needs; install Debian's %s package",
                     d->what, d->soname, d->names[i], d->package);
            dlclose(lib);
            return;
        }
        memcpy(d->slots[i], &f, sizeof f);
    }
    if (d->after)
        d->after();
    atomic_store_explicit(&d->state, 1, memory_order_release);
}

int forge_dl_load(struct forge_dl *d, struct forge_err *err)
{
    int state = atomic_load_explicit(&d->state, memory_order_acquire);
    if (!state) {
        pthread_mutex_lock(&d->mu);
        if (!atomic_load_explicit(&d->state, memory_order_relaxed)) {
            open_lib(d);
            if (atomic_load_explicit(&d->state, memory_order_relaxed) != 1)
                atomic_store_explicit(&d->state, -1, memory_order_release);
        }
        pthread_mutex_unlock(&d->mu);
        state = atomic_load_explicit(&d->state, memory_order_acquire);
    }
    return state == 1 ? 0 : forge_err_set(err, FORGE_EIO, "%s", d->msg);
}
