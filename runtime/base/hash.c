/* The per-process basis of forge_hash_str. */
#include "base/hash.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t forge_hash_basis = 0xcbf29ce484222325ull;

__attribute__((constructor)) static void hash_basis(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32);
    }
    forge_hash_basis ^= r;
}
