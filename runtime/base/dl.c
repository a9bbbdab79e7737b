/* Libraries loaded on first use (see dl.h). */
#include "base/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *forge_dl_open(const char *soname, const char *what, const char *package, const char *const *names,
                    void *const *slots, size_t n, char *msg, size_t cap)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(msg, cap, "cannot load %s (%s): %s; install Debian's %s package", what, soname,
                 why ? why : "not found", package);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(lib, names[i]);
        if (!f) {
            snprintf(msg, cap, "%s (%s) lacks %s, which forge needs; install Debian's %s package", what, soname,
                     names[i], package);
            dlclose(lib);
            return NULL;
        }
        memcpy(slots[i], &f, sizeof f);
    }
    return lib;
}
