/*
 * pool.c -- the thread pool of large calls (see pool.h).
 *
 * State, all under one mutex: the thread count, the workers (created on demand, never stopped:
 * a worker beyond the current count sleeps), and the one job being run (its plan, function,
 * context, the next chunk to take and how many chunks are done). A job is posted by bumping
 * `generation` and waking every worker; a worker whose index is below the job's slot count takes
 * chunks until none is left. The caller takes chunks too and then waits until every chunk is
 * done, not until every worker has woken: a worker that wakes late (a busy machine) finds no
 * chunk left and goes back to sleep, so a slow wake-up never delays a call, and the job's
 * function is only called for a chunk taken while the job was live.
 */
#if !defined(_WIN32) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif

#include "pool.h"

#include <stdint.h>

#ifdef _WIN32
#include <windows.h>
#include <process.h>
typedef SRWLOCK sks_mutex;
typedef CONDITION_VARIABLE sks_cond;
#define mutex_init(m) InitializeSRWLock(m)
#define mutex_lock(m) AcquireSRWLockExclusive(m)
#define mutex_unlock(m) ReleaseSRWLockExclusive(m)
#define cond_init(c) InitializeConditionVariable(c)
#define cond_wait(c, m) SleepConditionVariableSRW(c, m, INFINITE, 0)
#define cond_signal(c) WakeConditionVariable(c)
#define cond_broadcast(c) WakeAllConditionVariable(c)
#else
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
typedef pthread_mutex_t sks_mutex;
typedef pthread_cond_t sks_cond;
#define mutex_init(m) pthread_mutex_init(m, NULL)
#define mutex_lock(m) pthread_mutex_lock(m)
#define mutex_unlock(m) pthread_mutex_unlock(m)
#define cond_init(c) pthread_cond_init(c, NULL)
#define cond_wait(c, m) pthread_cond_wait(c, m)
#define cond_signal(c) pthread_cond_signal(c)
#define cond_broadcast(c) pthread_cond_broadcast(c)
#endif

static struct {
    sks_mutex lock;
    sks_cond wake;      /* workers wait here for a job */
    sks_cond done;      /* the caller waits here for the last chunk */
    int initialised;
    int threads;        /* the thread count of divided calls, the caller included */
    int workers;        /* worker threads started (indices 1..workers) */
    int busy;           /* a job is being run */
    unsigned long generation;
    unsigned long divided;   /* calls of more than one chunk */
    /* the job */
    sks_pool_plan plan;
    sks_pool_fn fn;
    void *ctx;
    size_t next, finished;
} pool;

#if defined(_MSC_VER)
#define SKS_THREAD_LOCAL __declspec(thread)
#else
#define SKS_THREAD_LOCAL __thread
#endif

/* The calling thread's own limit (sks_pool_set_thread_limit); 0: none. */
static SKS_THREAD_LOCAL int thread_limit;

void sks_pool_set_thread_limit(int n)
{
    thread_limit = n > 0 ? n : 0;
}

int sks_pool_get_thread_limit(void)
{
    return thread_limit;
}

#ifdef _WIN32
static INIT_ONCE pool_once = INIT_ONCE_STATIC_INIT;
#else
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
#endif

/* A forked child has one thread, the one that called fork(): the workers are gone and the lock
 * may have been held by one of them. Start again without workers (created on the next divided
 * call) and with the parent's thread count. */
static void reset_after_fork(void)
{
    mutex_init(&pool.lock);
    cond_init(&pool.wake);
    cond_init(&pool.done);
    pool.workers = 0;
    pool.busy = 0;
    pool.fn = NULL;
    pool.ctx = NULL;
    pool.divided = 0;
}

static void init_once(void)
{
    mutex_init(&pool.lock);
    cond_init(&pool.wake);
    cond_init(&pool.done);
    if (pool.threads < 1) pool.threads = sks_pool_available_cpus();
#ifndef _WIN32
    pthread_atfork(NULL, NULL, reset_after_fork);
#endif
    pool.initialised = 1;
}

#ifdef _WIN32
static BOOL CALLBACK init_once_win(PINIT_ONCE once, PVOID param, PVOID *context)
{
    (void)once;
    (void)param;
    (void)context;
    init_once();
    return TRUE;
}
#endif

static void ensure_init(void)
{
#ifdef _WIN32
    InitOnceExecuteOnce(&pool_once, init_once_win, NULL, NULL);
#else
    pthread_once(&pool_once, init_once);
#endif
}

int sks_pool_available_cpus(void)
{
#ifdef _WIN32
    DWORD_PTR process_mask = 0, system_mask = 0;
    if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask) &&
        process_mask != 0) {
        int n = 0;
        for (; process_mask; process_mask &= process_mask - 1) n++;
        return n;
    }
    {
        SYSTEM_INFO info;
        GetSystemInfo(&info);
        return info.dwNumberOfProcessors > 0 ? (int)info.dwNumberOfProcessors : 1;
    }
#else
    long n;
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
#endif
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n < SKS_POOL_MAX_THREADS ? n : SKS_POOL_MAX_THREADS) : 1;
#endif
}

void sks_pool_set_threads(int n)
{
    ensure_init();
    if (n < 1) n = 1;
    if (n > SKS_POOL_MAX_THREADS) n = SKS_POOL_MAX_THREADS;
    mutex_lock(&pool.lock);
    pool.threads = n;
    mutex_unlock(&pool.lock);
}

int sks_pool_get_threads(void)
{
    ensure_init();
    return pool.threads;
}

int sks_pool_workers(void)
{
    int n;
    ensure_init();
    mutex_lock(&pool.lock);
    n = pool.workers;
    mutex_unlock(&pool.lock);
    return n;
}

unsigned long sks_pool_divided_calls(void)
{
    unsigned long n;
    ensure_init();
    mutex_lock(&pool.lock);
    n = pool.divided;
    mutex_unlock(&pool.lock);
    return n;
}

sks_pool_plan sks_pool_plan_for(size_t units, size_t grain, double ns_per_unit)
{
    sks_pool_plan p;
    size_t threads, blocks, per_chunk;
    p.units = units;
    p.chunk_units = units;
    p.chunks = 1;
    p.slots = 1;
    if (grain < 1) grain = 1;
    if ((double)units * ns_per_unit < SKS_POOL_MIN_NS || units <= grain) return p;
    ensure_init();
    threads = (size_t)pool.threads;
    if (thread_limit > 0 && (size_t)thread_limit < threads) threads = (size_t)thread_limit;
    if (threads < 2) return p;
    blocks = (units + grain - 1) / grain;
    /* Four chunks per thread (a thread slowed down by the machine's other work hands its share
     * to the others), but none shorter than a quarter of the threshold. */
    per_chunk = (blocks + 4 * threads - 1) / (4 * threads);
    {
        const double min_blocks = SKS_POOL_MIN_NS / 4.0 / (ns_per_unit * (double)grain);
        if ((double)per_chunk < min_blocks) per_chunk = (size_t)min_blocks + 1;
    }
    if (per_chunk < 1) per_chunk = 1;
    p.chunk_units = per_chunk * grain;
    p.chunks = (units + p.chunk_units - 1) / p.chunk_units;
    if (p.chunks < 2) {
        p.chunk_units = units;
        p.chunks = 1;
        return p;
    }
    p.slots = p.chunks < threads ? p.chunks : threads;
    return p;
}

/* Takes and runs chunks of the live job on `slot` until none is left; called and returns with
 * the lock held. */
static void run_chunks(size_t slot)
{
    while (pool.next < pool.plan.chunks) {
        const size_t c = pool.next++;
        const size_t begin = c * pool.plan.chunk_units;
        const size_t end = begin + pool.plan.chunk_units < pool.plan.units
                               ? begin + pool.plan.chunk_units : pool.plan.units;
        const sks_pool_fn fn = pool.fn;
        void *const ctx = pool.ctx;
        mutex_unlock(&pool.lock);
        fn(ctx, begin, end, slot);
        mutex_lock(&pool.lock);
        if (++pool.finished == pool.plan.chunks) cond_signal(&pool.done);
    }
}

#ifdef _WIN32
static unsigned __stdcall worker_main(void *arg)
#else
static void *worker_main(void *arg)
#endif
{
    /* arg: the worker's index (1..) and the generation it was started at, packed. */
    const size_t index = ((size_t *)arg)[0];
    unsigned long seen = (unsigned long)((size_t *)arg)[1];
    mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen) cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        if (pool.busy && index < pool.plan.slots) run_chunks(index);
    }
#ifdef _WIN32
    return 0;
#else
    return NULL;
#endif
}

/* Starts workers up to index `wanted - 1`; called with the lock held. A worker that cannot be
 * started leaves the pool smaller: the caller and the others take its chunks. */
static void start_workers(int wanted)
{
    static size_t args[SKS_POOL_MAX_THREADS][2];
    while (pool.workers + 1 < wanted) {
        const int index = pool.workers + 1;
        args[index][0] = (size_t)index;
        args[index][1] = (size_t)pool.generation;
#ifdef _WIN32
        {
            uintptr_t h = _beginthreadex(NULL, 0, worker_main, args[index], 0, NULL);
            if (h == 0) return;
            CloseHandle((HANDLE)h);
        }
#else
        {
            pthread_t thread;
            pthread_attr_t attr;
            int failed;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            failed = pthread_create(&thread, &attr, worker_main, args[index]);
            pthread_attr_destroy(&attr);
            if (failed) return;
        }
#endif
        pool.workers = index;
    }
}

void sks_pool_run(const sks_pool_plan *plan, sks_pool_fn fn, void *ctx)
{
    size_t c;
    if (plan->chunks <= 1) {
        if (plan->units > 0) fn(ctx, 0, plan->units, 0);
        return;
    }
    ensure_init();
    mutex_lock(&pool.lock);
    pool.divided++;
    if (pool.busy) {
        /* Another call holds the pool: run every chunk here. */
        mutex_unlock(&pool.lock);
        goto serial;
    }
    start_workers((int)plan->slots);
    if (pool.workers == 0) {
        mutex_unlock(&pool.lock);
        goto serial;
    }
    pool.busy = 1;
    pool.plan = *plan;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.next = 0;
    pool.finished = 0;
    pool.generation++;
    cond_broadcast(&pool.wake);
    run_chunks(0);
    while (pool.finished < pool.plan.chunks) cond_wait(&pool.done, &pool.lock);
    pool.busy = 0;
    pool.fn = NULL;
    pool.ctx = NULL;
    mutex_unlock(&pool.lock);
    return;
serial:
    for (c = 0; c < plan->chunks; c++) {
        const size_t begin = c * plan->chunk_units;
        const size_t end = begin + plan->chunk_units < plan->units ? begin + plan->chunk_units
                                                                   : plan->units;
        fn(ctx, begin, end, 0);
    }
}
