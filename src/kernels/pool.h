/*
 * pool.h -- the thread pool that divides one large call over the process's CPUs; in pool.c.
 *
 * A call is a range of `units` independent items (skeletons of a walk, vertices, quaternions,
 * query rows, ...). sks_pool_plan decides, from the estimated single-thread time (units times
 * the family's nanoseconds per unit), whether the call is divided at all: under
 * SKS_POOL_MIN_NS it is one chunk run on the calling thread, and the pool is not touched (no
 * lock, no thread). Above it the range is cut into chunks of whole `grain` units (8: one SIMD
 * block of every target, so a chunk never splits a vector; a walk's unit is a whole character)
 * that the calling thread and the pool's workers take in turn. Every item is computed by the
 * same code whatever chunk holds it, so a result is bit for bit the same at every thread count;
 * a reduction keeps one partial result per chunk (chunk boundaries depend on the plan) or one
 * per slot and combines them after the join in a fixed order.
 *
 * The pool is process-wide: sks_pool_set_threads sets how many threads (the caller included)
 * take part in a call. Its workers start on the first divided call and sleep between calls;
 * they never touch Python. One divided call runs at a time: a second caller (another Python
 * thread with the GIL released, or a kernel already running on a worker) finds the pool busy
 * and runs its chunks itself, so calls from many threads never oversubscribe the CPUs. After
 * fork() the child starts without workers and creates them again on its first divided call
 * (pthread_atfork). Pure C: POSIX threads, or Windows threads under _WIN32.
 */
#ifndef SKS_POOL_H
#define SKS_POOL_H

#include <stddef.h>

/* A call whose estimated single-thread time is below this stays on the calling thread: about
 * 20 times what waking the workers and joining them costs on an idle machine (measured with
 * `python -m skelsimd bench --threads`: a few microseconds). */
#define SKS_POOL_MIN_NS 60000.0

/* The most threads a call is divided over. */
#define SKS_POOL_MAX_THREADS 256

/* Runs the units [begin, end) of a call; `slot` < plan.slots names the thread running it (0 is
 * the caller), for per-thread scratch: two chunks never run at once on one slot. */
typedef void (*sks_pool_fn)(void *ctx, size_t begin, size_t end, size_t slot);

/* How a call is divided: `chunks` ranges of `chunk_units` units (the last one shorter), run by
 * at most `slots` threads. chunks == 1 (and slots == 1): the whole call on the caller. */
typedef struct sks_pool_plan {
    size_t units, chunk_units, chunks, slots;
} sks_pool_plan;

/* The plan of `units` units of `ns_per_unit` estimated nanoseconds each, chunks in multiples of
 * `grain` units, for the current thread count. */
sks_pool_plan sks_pool_plan_for(size_t units, size_t grain, double ns_per_unit);

/* Runs fn over every chunk of `plan`, on the caller and the workers, and returns when all are
 * done. A plan of one chunk is a plain call fn(ctx, 0, units, 0). */
void sks_pool_run(const sks_pool_plan *plan, sks_pool_fn fn, void *ctx);

/* The thread count of divided calls (1 to SKS_POOL_MAX_THREADS; the caller is one of them).
 * Values out of range are clamped (the Python layer refuses them first). */
void sks_pool_set_threads(int n);
int sks_pool_get_threads(void);

/* A limit on the threads of the calls made from the calling thread only (0: none, the
 * process-wide count applies): skelsimd.dask sets 1 on its worker threads, so that a Dask worker
 * with one thread per CPU does not divide its calls again. */
void sks_pool_set_thread_limit(int n);
int sks_pool_get_thread_limit(void);

/* The CPUs this process may run on (its affinity mask where the system has one), at least 1. */
int sks_pool_available_cpus(void);

/* How many calls have been divided into several chunks since the process started (or was
 * forked): tests check with it that a call was divided. */
unsigned long sks_pool_divided_calls(void);

/* How many worker threads exist now (0 before the first divided call and in a forked child). */
int sks_pool_workers(void);

#endif /* SKS_POOL_H */
