/* thread_pool.c -- a small pool of worker threads, owned by one object.
 *
 * A job is num_chunks chunks with fixed boundaries. They are claimed through
 * one atomic word, state = generation (high 32 bits) | next chunk (low 32
 * bits): a thread claims chunks k..k+c-1 by a compare-and-swap from (g, k)
 * to (g, k + c), so a late worker still holding generation g - 1 claims
 * nothing of job g. The caller publishes the job, claims chunks like
 * any worker, and when none is left waits only for the chunks workers
 * claimed -- never for a worker the system has not yet run, which may be
 * milliseconds away on a busy machine (an OpenMP team waits for all its
 * threads at every barrier: with one kernel row per parallel region, that
 * made two threads 30x slower than one at load 8 on two cores). Then it
 * closes the job by moving state to (g + 1, CLOSED), where nothing can be
 * claimed, and only then rewrites the job for the next call: a worker whose
 * claim succeeds read the job of that claim's generation.
 *
 * Home chunks. With dynamic claims, which thread runs a chunk changes from
 * job to job, and a chunk's data (the SBP's responses and sums of one
 * block of examples, written at every row) moves between the cores' caches
 * with it. Where the two vCPUs of a VM do not share a cache, each move is a
 * miss on the other side: the same 2-thread SBP ran 0.37 or 0.47-0.56 s on
 * ijcnn1, by minutes-long phases of the VM, where two one-thread processes
 * at once ran as fast as one alone throughout (they share nothing). So the
 * caller's first 1/T of a parallel job's chunks are its home: it claims them
 * first, through a word of their own (home), and the workers claim the rest
 * (state), each then taking what is left of the other's (a caller
 * descheduled on a busy machine holds no chunk up). With two threads each
 * block then stays on one core, but for the last claims of a job: in the
 * VM's slow phase the SBP took 0.40-0.44 s (ijcnn1) and 0.22-0.24 s (a9a)
 * against 0.47-0.56 and 0.26-0.29 s before, and 2-4 % less in its fast
 * phase (bench/results/kernel_speed.md, "Stop 51"). Both words carry the
 * job's generation and are closed together.
 *
 * A worker, between jobs, waits awake (a few pause instructions, then
 * sched_yield, which hands the core to any thread waiting for it, the caller
 * included), so a job that follows soon (the next kernel row) finds it
 * awake, then sleeps on a condition variable; the caller signals only when a
 * worker sleeps (a sleeper count, read after the job is published: either
 * the caller sees the sleeper or the sleeper sees the job). A missed wake-up
 * costs speed, never correctness: the caller runs every chunk no worker
 * claimed. How long a worker waits awake is the caller's call (spin_ns): the
 * gap between two jobs is the solver's serial work between two kernel rows,
 * 85-140 us for the SBP on a9a at load 6-8 (-DSS_POOL_STATS), longer than a
 * fixed 50 us, and a worker asleep at every row would join each row late by
 * a wake-up (a futex call on the caller, tens of microseconds to run). So
 * while the workers pay, the caller keeps them awake across twice the
 * recent gap (a running average of gaps capped at 1 ms), at most
 * SPIN_MAX_NS; otherwise, and while it runs alone, SPIN_NS. A worker whose
 * sched_yield returns late (YIELD_BUSY_NS: another thread ran on its core)
 * waits no longer than SPIN_NS either: on a busy machine a long wait would
 * take a share of a core from the other programs and from the caller.
 *
 * Threads only pay when they have cores to run on. A worker descheduled in
 * the middle of its chunk holds the caller up, and a worker that shares the
 * caller's core only slows it down. So the caller measures: it alternates
 * periods where the workers take part with periods where it runs every job
 * alone, and compares the wall time per chunk of the two. The workers pay
 * while they make the jobs clearly faster (SS_POOL_PAR_GAIN) and the jobs
 * with the gaps before them no slower (SS_POOL_GAP_SLACK): a worker waiting
 * awake may slow the caller's serial work between jobs on a busy machine,
 * which the jobs' own time does not show. While they pay, the parallel
 * periods double in length up to PERIOD_MAX_NS and the solo ones, probes of
 * the serial speed, stay at PERIOD_MIN_NS; otherwise the other way round.
 * A probe of the workers follows a solo period in which they slept, and a
 * worker that has just woken runs slowly for a while (its caches are cold;
 * on a VM its CPU may take milliseconds to come back), so a probe reads
 * worse than the workers will do. So the first WARMUP_JOBS jobs of every
 * period are not measured, nor is the pool's first period (the solver's
 * own warm-up, the first touches of its arrays); and once the workers do
 * not pay, a probe no slower per chunk than the caller alone brings them
 * back (SS_POOL_PAR_GAIN is the bar for staying:
 * ss_thread_pool_workers_pay). With one bar for both, on an idle 2-core VM
 * some two-thread runs of a9a's SBP ran nearly all alone: cold probes read
 * 0.87-1.14x the solo time per chunk, and each failed one doubled the next
 * solo period (bench/results/kernel_speed.md, "The pool's probes"). Once
 * the periods have grown, the probes take about 1% of the time (2 ms in
 * 256 ms); on a busy machine two threads stayed within 0.5-1.1x of one
 * thread's wall time where OpenMP took 2.4-23x
 * (bench/results/threads_pool.md). The periods judge the jobs
 * that come often (a kernel row each); a job that runs alone for longer than
 * LONG_JOB_NS (kernel SDCA's final pass, n scores) is not one of them: the
 * caller runs its chunks in batches of 1, 2, 4, ... and, past that time,
 * offers the rest to the workers like a parallel job, where a wake-up or a
 * late worker costs little beside milliseconds of work (on a9a at 0.1 epoch
 * the pass is 95% of the run, and whether it ran alone depended on the
 * period it fell in: two threads gave 1.05x). Such a job counts in neither
 * mode's measure. Who runs a chunk never changes what the chunk computes, so
 * results stay the same whatever the timing.
 *
 * After fork(). A child process has the pool's memory but none of its
 * workers (fork copies only the calling thread), and its mutex may have
 * been held by one of them at the fork. So the pool notes the process that
 * made it (owner), and in any other process never joins a worker, never
 * locks the mutex and never wakes anybody: a job there runs on the caller
 * (no worker claims a chunk, and the caller waits only for claimed ones),
 * the same bits as ever, and deleting the pool frees its memory only
 * (joining a worker of the parent waited forever). The objects' train
 * calls replace such a pool by a new one of the same size
 * (ss_threads_after_fork), so a child trains on its own threads; one
 * getpid() a train call, and one a wake-up, which is a system call anyway.
 *
 * Threads are POSIX threads with C11 atomics. Without them (Windows without
 * pthreads, a compiler without C11 atomics (atomics.h), or -DSS_NO_THREADS:
 * SS_POOL_THREADS, thread_pool.h) the pool is never created and every job
 * runs serially on the caller.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "threads.h"

#include <stdlib.h>

#if SS_POOL_THREADS

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#define CLOSED UINT64_C(0xFFFFFFFF)
#define GENERATION(s) ((s) >> 32)
#define NEXT(s) ((s) & CLOSED)

enum {
  LINE = 64,          /* a cache line: the hot atomics get one each */
  MAX_THREADS = SS_MAX_NUM_THREADS, /* threads started at most, the caller included */
  CALLER_SPINS = 2000 /* pauses before the caller yields while it waits */
};
#define SPIN_NS INT64_C(50000)        /* a worker's least wait for the next job before it sleeps */
#ifndef SS_POOL_SPIN_MAX_NS /* a measuring build may set it (SPIN_NS: no learned wait) */
#define SS_POOL_SPIN_MAX_NS 1000000
#endif
#define SPIN_MAX_NS ((int64_t)SS_POOL_SPIN_MAX_NS) /* its longest */
#define GAP_MAX_NS INT64_C(1000000)              /* the cap on a gap between jobs */
#define YIELD_BUSY_NS INT64_C(20000) /* a yield this long ran another thread: the core is contended */
#define PERIOD_MIN_NS INT64_C(2000000)   /* the shortest period of one mode */
#define PERIOD_MAX_NS INT64_C(256000000) /* the longest */
#define PERIOD_MIN_JOBS 4                /* jobs a period needs to be judged */
#define WARMUP_JOBS 2                    /* a period's first jobs, not measured */
#define LONG_JOB_NS INT64_C(4000000)     /* a job run alone this long takes the workers on */

/* -DSS_POOL_STATS counts what the pool does and prints it to stderr when the
 * pool is deleted: a measuring build, never the library's. */
#ifdef SS_POOL_STATS
#include <stdio.h>
#define STAT(pool, name) atomic_fetch_add_explicit(&(pool)->stats.name, 1, memory_order_relaxed)
typedef struct PoolStats {
  _Atomic int64_t parallel_jobs, solo_jobs, long_jobs, wakes, sleeps, yields;
  _Atomic int64_t published, joins, join_ns; /* when the job opened; a worker's lateness */
  _Atomic int64_t taken_home, taken_shared; /* chunks run off their side: the caller's home
                                                by a worker, the shared ones by the caller */
} PoolStats;
#else
#define STAT(pool, name) ((void)0)
#endif

typedef struct Worker {
  SsThreadPool *pool;
  int slot;
  pthread_t thread;
} Worker;

struct SsThreadPool {
  _Alignas(LINE) _Atomic uint64_t state; /* generation | next chunk */
  _Alignas(LINE) _Atomic uint64_t home;  /* the caller's home chunks: generation | next chunk */
  _Atomic int64_t home_end;               /* they are [0, home_end) */
  _Alignas(LINE) _Atomic int64_t done;   /* chunks of the job the workers finished */
  _Alignas(LINE) _Atomic(SsParallelFn) fn;
  _Atomic int64_t spin_ns; /* how long a worker waits for a job before it sleeps */
  _Atomic(void *) context;
  _Atomic int64_t num_chunks;
  _Atomic int sleepers;
  _Atomic bool quit;
  _Atomic bool busy; /* a caller is running a job */
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  /* The caller's, under busy: the present period, its totals, and what the
   * last period of each mode measured (ns per chunk, 0: not yet). */
  bool adaptive, solo, pays;
  bool warm; /* the pool's first period is over */
  int64_t period_end, period_jobs, period_ns, period_gap_ns, period_chunks;
  int64_t period_skip; /* jobs of the period still to run unmeasured */
  int64_t last_close; /* when the last job ended (0: none yet) */
  double gap_ns;      /* the recent gap between jobs, capped, averaged */
  double rate[2], total[2]; /* [solo]: ns per chunk, without and with the gaps */
  int64_t length[2];
  int num_workers;
  Worker *workers;
  pid_t owner; /* the process whose threads the workers are ("After fork") */
#ifdef SS_POOL_STATS
  PoolStats stats;
#endif
};

static int64_t now_ns(void)
{
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
  return (int64_t)t.tv_sec * INT64_C(1000000000) + (int64_t)t.tv_nsec;
}

/* A hint to the core that this thread spins. */
static inline void cpu_relax(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* A job the worker has not joined: a generation other than @p seen, open. */
static inline bool joinable(uint64_t s, uint64_t seen)
{
  return GENERATION(s) != seen && NEXT(s) != CLOSED;
}

/* Claims chunks [NEXT(s), end) of the job through @p word (state or home),
 * whose value was @p s, and runs them; a worker (@p slot > 0) counts them in
 * done. A claim takes a share of what is left (half of it divided among
 * the threads, at least one chunk), so a long job costs a few claims per
 * thread and its last chunks are still claimed one by one. Returns the
 * number of chunks run. */
static int64_t run_chunks(SsThreadPool *pool, _Atomic uint64_t *word, uint64_t s, uint64_t end,
                          int slot)
{
  const uint64_t g = GENERATION(s);
  const SsParallelFn fn = atomic_load_explicit(&pool->fn, memory_order_relaxed);
  void *context = atomic_load_explicit(&pool->context, memory_order_relaxed);
  const uint64_t shares = 2 * (uint64_t)(1 + pool->num_workers);
  int64_t count = 0;
  while (GENERATION(s) == g && NEXT(s) < end) {
    const uint64_t left = end - NEXT(s), take = left > shares ? left / shares : 1;
    if (!atomic_compare_exchange_weak_explicit(word, &s, s + take, memory_order_acq_rel,
                                               memory_order_acquire))
      continue; /* s now holds the word's value */
    fn(context, (int64_t)NEXT(s), (int64_t)(NEXT(s) + take), slot);
    count += (int64_t)take;
#ifdef SS_POOL_STATS
    if ((slot > 0) == (word == &pool->home))
      atomic_fetch_add(word == &pool->home ? &pool->stats.taken_home : &pool->stats.taken_shared,
                       (int64_t)take);
#endif
    if (slot > 0) atomic_fetch_add_explicit(&pool->done, (int64_t)take, memory_order_release);
    s = atomic_load_explicit(word, memory_order_acquire);
  }
  return count;
}

/* Spins, then sleeps, until a job other than @p seen is open (true, its
 * state in *s) or the pool quits (false). */
static bool wait_for_job(SsThreadPool *pool, uint64_t seen, uint64_t *s)
{
  const int64_t start = now_ns();
  bool contended = false; /* a yield ran another thread: no long wait */
  for (unsigned spins = 1;; ++spins) {
    if (atomic_load_explicit(&pool->quit, memory_order_relaxed)) return false;
    *s = atomic_load_explicit(&pool->state, memory_order_acquire);
    if (joinable(*s, seen)) return true;
    /* a pause at first; then yield, so that a thread waiting for this core
     * (the caller itself, when the machine is busy) runs instead */
    if (spins < 64) {
      cpu_relax();
    } else {
      const int64_t before = now_ns();
      sched_yield();
      const int64_t after = now_ns();
      STAT(pool, yields);
      contended = contended || after - before > YIELD_BUSY_NS;
      const int64_t spin = atomic_load_explicit(&pool->spin_ns, memory_order_relaxed);
      if (after - start > (contended && spin > SPIN_NS ? SPIN_NS : spin)) break;
    }
  }
  if (pthread_mutex_lock(&pool->mutex) != 0) {
    /* cannot sleep: keep polling, politely */
    for (;;) {
      if (atomic_load(&pool->quit)) return false;
      *s = atomic_load(&pool->state);
      if (joinable(*s, seen)) return true;
      sched_yield();
    }
  }
  atomic_fetch_add(&pool->sleepers, 1); /* sequentially consistent with the caller's publish */
  bool job = false;
  for (;;) {
    if (atomic_load(&pool->quit)) break;
    *s = atomic_load(&pool->state);
    if (joinable(*s, seen)) {
      job = true;
      break;
    }
    STAT(pool, sleeps);
    pthread_cond_wait(&pool->wake, &pool->mutex); /* a failure acts as a spurious wake-up */
  }
  atomic_fetch_sub(&pool->sleepers, 1);
  pthread_mutex_unlock(&pool->mutex);
  return job;
}

static void *worker_main(void *arg)
{
  const Worker *w = arg;
  SsThreadPool *pool = w->pool;
  uint64_t seen = 0, s;
  while (wait_for_job(pool, seen, &s)) {
    seen = GENERATION(s);
#ifdef SS_POOL_STATS
    STAT(pool, joins);
    atomic_fetch_add(&pool->stats.join_ns, now_ns() - atomic_load(&pool->stats.published));
#endif
    const uint64_t n = (uint64_t)atomic_load_explicit(&pool->num_chunks, memory_order_relaxed);
    run_chunks(pool, &pool->state, s, n, w->slot);
    /* then what the caller has not claimed of its home chunks (a caller
     * descheduled on a busy machine holds nothing up) */
    const uint64_t h = atomic_load_explicit(&pool->home, memory_order_acquire);
    const uint64_t end = (uint64_t)atomic_load_explicit(&pool->home_end, memory_order_relaxed);
    if (GENERATION(h) == seen) run_chunks(pool, &pool->home, h, end, w->slot);
  }
  return NULL;
}

static void wake_all(SsThreadPool *pool)
{
  const bool locked = pthread_mutex_lock(&pool->mutex) == 0;
  pthread_cond_broadcast(&pool->wake);
  if (locked) pthread_mutex_unlock(&pool->mutex);
}

static void free_pool(SsThreadPool *pool)
{
  free(pool->workers);
  free(pool);
}

SsStatus ss_thread_pool_new(int num_threads, SsThreadPool **out)
{
  if (!out) return SS_ERR_BAD_ARG;
  *out = NULL;
  if (num_threads <= 1) return SS_OK;
  if (num_threads > MAX_THREADS) num_threads = MAX_THREADS;
  const size_t bytes = (sizeof(SsThreadPool) + LINE - 1) / LINE * LINE;
  SsThreadPool *pool = aligned_alloc(LINE, bytes);
  if (!pool) return SS_ERR_ALLOC;
  pool->workers = malloc((size_t)(num_threads - 1) * sizeof(Worker));
  if (!pool->workers) {
    free(pool);
    return SS_ERR_ALLOC;
  }
  atomic_init(&pool->state, (UINT64_C(1) << 32) | CLOSED); /* workers start having seen 0 */
  atomic_init(&pool->home, (UINT64_C(1) << 32) | CLOSED);
  atomic_init(&pool->home_end, 0);
  atomic_init(&pool->done, 0);
  atomic_init(&pool->fn, NULL);
  atomic_init(&pool->spin_ns, SPIN_NS);
  atomic_init(&pool->context, NULL);
  atomic_init(&pool->num_chunks, 0);
  atomic_init(&pool->sleepers, 0);
  atomic_init(&pool->quit, false);
  atomic_init(&pool->busy, false);
  pool->adaptive = true;
  pool->solo = pool->pays = pool->warm = false;
  pool->last_close = 0;
  pool->gap_ns = 0;
#ifdef SS_POOL_STATS
  pool->stats = (PoolStats){0};
  if (getenv("SS_POOL_ALWAYS_PARALLEL")) pool->adaptive = false;
#endif
  pool->period_end = pool->period_jobs = pool->period_ns = pool->period_gap_ns = 0;
  pool->period_chunks = pool->period_skip = 0;
  pool->rate[0] = pool->rate[1] = pool->total[0] = pool->total[1] = 0;
  pool->length[0] = pool->length[1] = PERIOD_MIN_NS;
  pool->num_workers = 0;
  pool->owner = getpid();
  if (pthread_mutex_init(&pool->mutex, NULL) != 0) {
    free_pool(pool);
    return SS_ERR_ALLOC;
  }
  if (pthread_cond_init(&pool->wake, NULL) != 0) {
    pthread_mutex_destroy(&pool->mutex);
    free_pool(pool);
    return SS_ERR_ALLOC;
  }
  /* Workers block every signal (they inherit the mask): signals stay with
   * the program's own threads, e.g. Python's SIGINT handler. */
  sigset_t all, old;
  sigfillset(&all);
  const bool masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
  for (int k = 0; k < num_threads - 1; ++k) {
    Worker *w = &pool->workers[k];
    w->pool = pool;
    w->slot = k + 1;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) break;
    pool->num_workers++;
  }
  if (masked) pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (pool->num_workers == 0) { /* no thread could start: serial */
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
    free_pool(pool);
    return SS_OK;
  }
  *out = pool;
  return SS_OK;
}

bool ss_thread_pool_forked(const SsThreadPool *pool) { return pool && pool->owner != getpid(); }

void ss_thread_pool_delete(SsThreadPool *pool)
{
  if (!pool) return;
  if (ss_thread_pool_forked(pool)) { /* the workers and the lock are the parent's */
    free_pool(pool);
    return;
  }
#ifdef SS_POOL_STATS
  fprintf(stderr, "pool: %lld parallel jobs, %lld solo (%lld of them long), %lld wake-ups, "
          "%lld sleeps, %lld yields, %lld joins %.0f ns late, gap %.0f ns, spin %lld ns, "
          "%lld home chunks run by workers, %lld shared by the caller\n",
          (long long)pool->stats.parallel_jobs, (long long)pool->stats.solo_jobs,
          (long long)pool->stats.long_jobs,
          (long long)pool->stats.wakes, (long long)pool->stats.sleeps, (long long)pool->stats.yields,
          (long long)pool->stats.joins,
          pool->stats.joins ? (double)pool->stats.join_ns / (double)pool->stats.joins : 0.0,
          pool->gap_ns, (long long)pool->spin_ns, (long long)pool->stats.taken_home,
          (long long)pool->stats.taken_shared);
#endif
  atomic_store(&pool->quit, true);
  wake_all(pool);
  for (int k = 0; k < pool->num_workers; ++k) pthread_join(pool->workers[k].thread, NULL);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->mutex);
  free_pool(pool);
}

int ss_thread_pool_num_slots(const SsThreadPool *pool) { return pool ? 1 + pool->num_workers : 1; }

void ss_thread_pool_set_adaptive(SsThreadPool *pool, bool adaptive)
{
  if (pool) pool->adaptive = adaptive;
}

/* Whether the job starting at @p now runs alone: at the end of a period
 * (long enough and with enough measured jobs), record its time per chunk
 * (not the pool's first period's), set the lengths of both modes from the
 * two latest measurements, switch modes. */
static bool run_alone(SsThreadPool *pool, int64_t now)
{
  if (!pool->adaptive) return false;
  if (now >= pool->period_end && pool->period_jobs >= PERIOD_MIN_JOBS) {
    const double chunks = (double)pool->period_chunks;
    if (pool->warm) {
      pool->rate[pool->solo] = (double)pool->period_ns / chunks;
      pool->total[pool->solo] = (double)(pool->period_ns + pool->period_gap_ns) / chunks;
    }
    pool->warm = true;
    if (pool->rate[0] > 0 && pool->rate[1] > 0) {
      const bool pays = ss_thread_pool_workers_pay(pool->pays, pool->rate[0], pool->rate[1],
                                                   pool->total[0], pool->total[1]);
      pool->pays = pays;
      int64_t *longer = &pool->length[!pays], *shorter = &pool->length[pays];
      *longer = *longer < PERIOD_MAX_NS / 2 ? 2 * *longer : PERIOD_MAX_NS;
      *shorter = PERIOD_MIN_NS;
    }
    pool->solo = !pool->solo;
    pool->period_end = now + pool->length[pool->solo];
    pool->period_jobs = pool->period_ns = pool->period_gap_ns = pool->period_chunks = 0;
    pool->period_skip = WARMUP_JOBS;
  }
  return pool->solo;
}

/* The gap between the last job and the one starting at @p now (capped
 * at GAP_MAX_NS; 0 for the first job), folded into the recent average. */
static int64_t gap_before(SsThreadPool *pool, int64_t now)
{
  if (pool->last_close == 0) return 0;
  const int64_t gap = now - pool->last_close < GAP_MAX_NS ? now - pool->last_close : GAP_MAX_NS;
  pool->gap_ns += ((double)gap - pool->gap_ns) / 8;
  return gap;
}

/* How long the workers wait for the next job before they sleep: across the
 * recent gap between jobs (twice it, bounded) while the workers pay (or the
 * caller does not measure), so that no job pays a wake-up; SPIN_NS while the
 * caller runs alone or the workers do not pay, so that they leave the cores
 * to others on a busy machine. */
static void set_spin(SsThreadPool *pool)
{
  int64_t spin = SPIN_NS;
  if (!pool->solo && (pool->pays || !pool->adaptive)) {
    const double wanted = SPIN_NS + 2 * pool->gap_ns;
    spin = wanted < (double)SPIN_MAX_NS ? (int64_t)wanted : SPIN_MAX_NS;
  }
  atomic_store_explicit(&pool->spin_ns, spin, memory_order_relaxed);
}

/* Add a job of @p n chunks that ran from @p start to @p end, after a gap of
 * @p gap, to the present period (unless it is one of the period's first
 * WARMUP_JOBS), and note when it closed. */
static void count_job(SsThreadPool *pool, int64_t n, int64_t gap, int64_t start, int64_t end)
{
  pool->last_close = end;
  if (pool->period_skip > 0) {
    pool->period_skip--;
    return;
  }
  pool->period_jobs++;
  pool->period_ns += end - start;
  pool->period_gap_ns += gap;
  pool->period_chunks += n;
}

/* A job of @p n chunks that the caller runs alone from @p start: its chunks
 * in batches of 1, 2, 4, ..., until all have run or LONG_JOB_NS has passed.
 * Returns the number of chunks run (n: all). */
static int64_t run_alone_while_short(int64_t n, SsParallelFn fn, void *context, int64_t start)
{
  int64_t done = 0;
  for (int64_t batch = 1; done < n; batch *= 2) {
    const int64_t end = n - done > batch ? done + batch : n;
    fn(context, done, end, 0);
    done = end;
    if (done < n && now_ns() - start > LONG_JOB_NS) break;
  }
  return done;
}

void ss_parallel_for(SsThreadPool *pool, int64_t num_chunks, SsParallelFn fn, void *context)
{
  if (num_chunks <= 0) return;
  if (!pool || num_chunks < 2 || (uint64_t)num_chunks >= CLOSED ||
      atomic_exchange_explicit(&pool->busy, true, memory_order_acquire)) {
    fn(context, 0, num_chunks, 0);
    return;
  }
  const int64_t t0 = now_ns(), gap = gap_before(pool, t0);
  const bool alone = run_alone(pool, t0);
  set_spin(pool);
  /* first: the chunks [0, first) the caller ran alone */
  const int64_t first = alone ? run_alone_while_short(num_chunks, fn, context, t0) : 0;
  if (first == num_chunks) {
    STAT(pool, solo_jobs);
    count_job(pool, num_chunks, gap, t0, now_ns());
    atomic_store_explicit(&pool->busy, false, memory_order_release);
    return;
  }
  if (alone) STAT(pool, long_jobs);
  else STAT(pool, parallel_jobs);
  /* Between jobs state is (g, CLOSED): job g opens at chunk first. */
  const uint64_t g = GENERATION(atomic_load_explicit(&pool->state, memory_order_relaxed));
  atomic_store_explicit(&pool->fn, fn, memory_order_relaxed);
  atomic_store_explicit(&pool->context, context, memory_order_relaxed);
  atomic_store_explicit(&pool->num_chunks, num_chunks, memory_order_relaxed);
  atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
#ifdef SS_POOL_STATS
  atomic_store(&pool->stats.published, now_ns());
#endif
  /* The caller's home chunks, [0, home): a parallel job's first 1/T
   * ("Home chunks"); the shared ones start after them. */
  const int64_t home = alone ? 0 : num_chunks / (1 + pool->num_workers);
  atomic_store_explicit(&pool->home_end, home, memory_order_relaxed);
  atomic_store_explicit(&pool->home, (g << 32) | (home > 0 ? 0 : CLOSED), memory_order_relaxed);
  const uint64_t open = (g << 32) | (uint64_t)(first + home);
  atomic_store(&pool->state, open); /* publish (release), then look for sleepers */
  if (atomic_load(&pool->sleepers) > 0 && !ss_thread_pool_forked(pool)) {
    STAT(pool, wakes);
    wake_all(pool);
  }

  int64_t own = first;
  if (home > 0) own += run_chunks(pool, &pool->home, (g << 32), (uint64_t)home, 0);
  own += run_chunks(pool, &pool->state, atomic_load_explicit(&pool->state, memory_order_acquire),
                    (uint64_t)num_chunks, 0);
  /* Every chunk is claimed: wait for the ones the workers are running. */
  for (unsigned spins = 0; atomic_load_explicit(&pool->done, memory_order_acquire) < num_chunks - own;
       ++spins) {
    if (spins < CALLER_SPINS) {
      cpu_relax();
    } else {
      sched_yield();
    }
  }
  /* Close: from here no claim of job g can succeed, so the job's fields and
   * the caller's context are free again. */
  atomic_exchange_explicit(&pool->state, ((g + 1) << 32) | CLOSED, memory_order_acq_rel);
  atomic_exchange_explicit(&pool->home, ((g + 1) << 32) | CLOSED, memory_order_acq_rel);
  if (alone) { /* a long job, partly alone: neither mode's measure */
    pool->last_close = now_ns();
  } else {
    count_job(pool, num_chunks, gap, t0, now_ns());
  }
  atomic_store_explicit(&pool->busy, false, memory_order_release);
}

#else /* no threads: every job runs on the caller */

SsStatus ss_thread_pool_new(int num_threads, SsThreadPool **out)
{
  (void)num_threads;
  if (!out) return SS_ERR_BAD_ARG;
  *out = NULL;
  return SS_OK;
}

void ss_thread_pool_delete(SsThreadPool *pool) { (void)pool; }

bool ss_thread_pool_forked(const SsThreadPool *pool)
{
  (void)pool;
  return false;
}

int ss_thread_pool_num_slots(const SsThreadPool *pool)
{
  (void)pool;
  return 1;
}

void ss_thread_pool_set_adaptive(SsThreadPool *pool, bool adaptive)
{
  (void)pool, (void)adaptive;
}

void ss_parallel_for(SsThreadPool *pool, int64_t num_chunks, SsParallelFn fn, void *context)
{
  (void)pool;
  if (num_chunks > 0) fn(context, 0, num_chunks, 0);
}

#endif

bool ss_thread_pool_workers_pay(bool paying, double parallel_rate, double solo_rate,
                                double parallel_total, double solo_total)
{
  const double gain = paying ? SS_POOL_PAR_GAIN : 1.0;
  return parallel_rate < gain * solo_rate && parallel_total <= SS_POOL_GAP_SLACK * solo_total;
}

SsStatus ss_threads_set_count(SsThreads *threads, int num_threads)
{
  if (num_threads > SS_MAX_NUM_THREADS) num_threads = SS_MAX_NUM_THREADS; /* (the getters say so) */
  if (num_threads == threads->count && (num_threads <= 1 || threads->pool) &&
      !ss_thread_pool_forked(threads->pool))
    return SS_OK; /* (a forked pool is replaced: "After fork") */
  SsThreadPool *pool = NULL;
  const SsStatus status = ss_thread_pool_new(num_threads, &pool);
  if (status != SS_OK) return status;
  ss_thread_pool_delete(threads->pool);
  threads->pool = pool;
  threads->count = num_threads;
  return SS_OK;
}

SsStatus ss_threads_after_fork(SsThreads *threads)
{
  if (!ss_thread_pool_forked(threads->pool)) return SS_OK;
  const int count = threads->count;
  ss_threads_free(threads); /* the memory only (ss_thread_pool_delete) */
  return ss_threads_set_count(threads, count);
}

void ss_threads_free(SsThreads *threads)
{
  ss_thread_pool_delete(threads->pool);
  threads->pool = NULL;
  threads->count = 1;
}
