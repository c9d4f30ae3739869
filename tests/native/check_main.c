/*
 * check_main.c -- the driver of the native bit-identity checks (see build.py): for every
 * family in families.h (plus the vocabulary itself) and every SIMD variant this CPU runs, the
 * family's checks compare the variant with the scalar variant; the pool's check runs kernels of
 * the variant through the thread pool at several thread counts (check_pool.c). Exit status 0 when all agree.
 */
#include "check.h"
#include "cpu.h"

int check_vocab(enum sks_isa isa, uint64_t seed);
int check_pool(enum sks_isa isa, uint64_t seed);
#define SKS_FAMILY(name) int check_##name(enum sks_isa isa, uint64_t seed);
#include "families.h"
#undef SKS_FAMILY

typedef struct family_check {
    const char *name;
    int (*run)(enum sks_isa isa, uint64_t seed);
} family_check;

static const family_check checks[] = {
    {"vocab", check_vocab},
#define SKS_FAMILY(name) {#name, check_##name},
#include "families.h"
#undef SKS_FAMILY
    {"pool", check_pool},
};

int main(int argc, char **argv)
{
    const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int failures = 0, compared = 0, i;
    size_t c;
    for (i = 1; i < SKS_ISA_COUNT; i++) {
        const enum sks_isa isa = (enum sks_isa)i;
        if (!sks_cpu_supports(isa)) continue;
        compared++;
        for (c = 0; c < sizeof checks / sizeof checks[0]; c++) {
            const int bad = checks[c].run(isa, seed);
            printf("%-10s %-7s %s\n", checks[c].name, sks_isa_name(isa), bad ? "FAILED" : "ok");
            failures += bad;
        }
    }
    if (compared == 0) {
        printf("no SIMD variant runs on this CPU: nothing to compare\n");
        return 1;
    }
    printf("%s: %d mismatching case(s)\n", failures ? "FAILED" : "all variants bit-identical",
           failures);
    return failures ? 1 : 0;
}
