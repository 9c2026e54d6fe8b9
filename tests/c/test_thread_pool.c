/* test_thread_pool.c -- the objects' thread pool (src/core/common/thread_pool.c):
 * every chunk of every job runs exactly once, on a valid slot, whatever the
 * number of chunks and threads; many tiny jobs in a row; a pool busy with
 * one caller runs a second caller's job (or a nested one) serially; objects
 * whose thread count changes between trains, or that are deleted untrained;
 * a pool in a fork() of the process that made it. Clean under ASan/UBSan, TSan (clang) and valgrind. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/core/common/thread_pool.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "../../src/core/linear/svm_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/svm.h"
#include "testutil.h"

/* A job that counts the runs of each chunk and records each chunk's slot. */
typedef struct CountJob {
  int64_t num_chunks;
  int num_slots;
  int *runs;          /* [num_chunks] */
  int *slot_of;       /* [num_chunks] */
  int bad_range;      /* a call with begin >= end or end > num_chunks */
  SsThreadPool *pool; /* non-NULL: each chunk submits a nested job to it */
  int64_t nested_chunks;
  int worker_delay;   /* a worker's chunk first spins this long: a caller that
                       * did not wait for it would find it not run */
} CountJob;

static void count_nested(void *context, int64_t begin, int64_t end, int slot)
{
  int64_t *calls = context;
  *calls += end - begin + (slot == 0 ? 0 : 1000000);
}

static void count_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  CountJob *job = context;
  if (begin >= end || begin < 0 || end > job->num_chunks || slot < 0 || slot >= job->num_slots) {
    job->bad_range = 1; /* several threads may store 1: each writes the same value */
    return;
  }
  for (int64_t k = begin; k < end; ++k) {
    if (slot > 0) {
      volatile int spin = 0;
      while (spin < job->worker_delay) spin = spin + 1;
    }
    job->runs[k]++;
    job->slot_of[k] = slot;
    if (job->pool) {
      /* the pool is busy with this job: the nested one runs here, serially */
      int64_t calls = 0;
      ss_parallel_for(job->pool, job->nested_chunks, count_nested, &calls);
      if (calls != job->nested_chunks) job->runs[k] += 100;
    }
  }
}

/* The number of chunks among @p n that did not run exactly once. */
static int64_t runs_not_once(const int *runs, int64_t n)
{
  int64_t wrong = 0;
  for (int64_t k = 0; k < n; ++k) wrong += runs[k] != 1;
  return wrong;
}

/* A pool of @p num_threads threads that offers every job of two or more
 * chunks to its workers (not adaptive); NULL when it cannot start one. */
/* A build without threads (SS_POOL_THREADS 0: -DSS_NO_THREADS, no C11
 * atomics) has no pool: the pool's own tests then check that and stop. */
#define REQUIRE_POOL(pool)                                                  \
  do {                                                                      \
    if (!SS_POOL_THREADS) {                                                 \
      CHECK((pool) == NULL);                                                \
      return;                                                               \
    }                                                                       \
    REQUIRE(pool);                                                          \
  } while (0)

static SsThreadPool *eager_pool(int num_threads)
{
  SsThreadPool *pool = NULL;
  if (ss_thread_pool_new(num_threads, &pool) != SS_OK) return NULL;
  ss_thread_pool_set_adaptive(pool, false);
  return pool;
}

/* Runs a job of @p n chunks on @p pool; every chunk ran once, on a valid slot.
 * Returns the number of chunks run off the calling thread. */
static int64_t check_job(SsThreadPool *pool, int64_t n)
{
  CountJob job = {.num_chunks = n, .num_slots = ss_thread_pool_num_slots(pool), .worker_delay = 2000};
  job.runs = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  job.slot_of = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  if (!job.runs || !job.slot_of) {
    CHECK(!"allocation");
    free(job.runs), free(job.slot_of);
    return 0;
  }
  ss_parallel_for(pool, n, count_chunks, &job);
  int64_t off_caller = 0;
  for (int64_t k = 0; k < n; ++k) off_caller += job.slot_of[k] != 0;
  CHECK_EQ_INT(runs_not_once(job.runs, n), 0);
  CHECK_EQ_INT(job.bad_range, 0);
  free(job.runs), free(job.slot_of);
  return off_caller;
}

void test_thread_pool_serial_fallbacks(void)
{
  SsThreadPool *pool = (SsThreadPool *)&pool; /* must be overwritten */
  CHECK_EQ_INT(ss_thread_pool_new(1, NULL), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_thread_pool_new(1, &pool), SS_OK);
  CHECK(pool == NULL);
  CHECK_EQ_INT(ss_thread_pool_new(-5, &pool), SS_OK);
  CHECK(pool == NULL);
  CHECK_EQ_INT(ss_thread_pool_num_slots(NULL), 1);
  ss_thread_pool_delete(NULL);
  /* NULL pool: one call for the whole range, on slot 0 */
  CHECK_EQ_INT(check_job(NULL, 0), 0);
  CHECK_EQ_INT(check_job(NULL, 1), 0);
  CHECK_EQ_INT(check_job(NULL, 1000), 0);
}

void test_thread_pool_jobs_of_any_size(void)
{
  SsThreadPool *pool = eager_pool(3);
  REQUIRE_POOL(pool);
  CHECK_EQ_INT(ss_thread_pool_num_slots(pool), 3);
  const int64_t sizes[] = {0, 1, 2, 3, 5, 64, 1000, 100000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    CHECK_EQ_INT(check_job(pool, sizes[s]) >= 0, 1);
  }
  CHECK_EQ_INT(check_job(pool, 1), 0); /* one chunk: on the caller */
  ss_thread_pool_delete(pool);
}

void test_thread_pool_many_tiny_jobs(void)
{
  /* More threads than chunks, and thousands of jobs in a row, each closing
   * before the next opens: a worker late from an earlier job must not run a
   * chunk of the next one twice or on stale arguments. */
  SsThreadPool *pool = eager_pool(5);
  REQUIRE_POOL(pool);
  int64_t off_caller = 0;
  for (int job = 0; job < 5000; ++job) off_caller += check_job(pool, 2 + job % 3);
  for (int job = 0; job < 50; ++job) off_caller += check_job(pool, 4096);
  CHECK(off_caller >= 0);
  ss_thread_pool_delete(pool);
}

void test_thread_pool_nested_job_runs_serially(void)
{
  SsThreadPool *pool = eager_pool(2);
  REQUIRE_POOL(pool);
  int runs[300] = {0}, slot_of[300] = {0};
  CountJob job = {.num_chunks = 300, .num_slots = 2, .runs = runs, .slot_of = slot_of,
                  .pool = pool, .nested_chunks = 7};
  ss_parallel_for(pool, 300, count_chunks, &job);
  CHECK_EQ_INT(runs_not_once(runs, 300), 0);
  CHECK_EQ_INT(job.bad_range, 0);
  ss_thread_pool_delete(pool);
}

/* Two callers share one pool: whoever finds it busy runs serially. */
static void *second_caller(void *arg)
{
  SsThreadPool *pool = arg;
  for (int job = 0; job < 2000; ++job) check_job(pool, 1 + job % 40);
  return NULL;
}

void test_thread_pool_two_callers(void)
{
  SsThreadPool *pool = eager_pool(2);
  REQUIRE_POOL(pool);
  pthread_t other;
  REQUIRE(pthread_create(&other, NULL, second_caller, pool) == 0);
  for (int job = 0; job < 2000; ++job) check_job(pool, 1 + job % 40);
  pthread_join(other, NULL);
  ss_thread_pool_delete(pool);
}

/* A chunk that takes 50 microseconds of wall time, counted in runs[]. */
typedef struct SlowJob {
  int64_t num_chunks;
  int runs[200];
  int bad_range;
} SlowJob;

static void slow_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  SlowJob *job = context;
  if (begin >= end || begin < 0 || end > job->num_chunks || slot < 0) {
    job->bad_range = 1;
    return;
  }
  for (int64_t k = begin; k < end; ++k) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
      clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 50000);
    job->runs[k]++;
  }
}

/* The adaptive pool's rule: to stay, the workers must make the jobs 15 %
 * faster per chunk; once they do not pay, a probe no slower brings them
 * back; either way the gaps between jobs may not grow the total by more
 * than 2 %. The same in builds without threads (the rule is pure). */
void test_thread_pool_workers_pay_rule(void)
{
  /* paying: clearly faster stays, a 10 % gain is not enough */
  CHECK(ss_thread_pool_workers_pay(true, 500, 1000, 600, 1100));
  CHECK(!ss_thread_pool_workers_pay(true, 900, 1000, 950, 1100));
  /* not paying: any gain per chunk brings them back, a loss does not */
  CHECK(ss_thread_pool_workers_pay(false, 900, 1000, 950, 1100));
  CHECK(!ss_thread_pool_workers_pay(false, 1000, 1000, 1050, 1100));
  CHECK(!ss_thread_pool_workers_pay(false, 1100, 1000, 1150, 1100));
  /* the totals with the gaps: at most 2 % above solo's, in both states */
  for (int paying = 0; paying < 2; ++paying) {
    CHECK(ss_thread_pool_workers_pay(paying, 500, 1000, 1120, 1100));
    CHECK(!ss_thread_pool_workers_pay(paying, 500, 1000, 1130, 1100));
  }
}

void test_thread_pool_long_job_run_alone(void)
{
  /* An adaptive pool measures its first four jobs with the workers, then
   * runs the fifth alone: a job of 10 ms, whose chunks after the first few
   * milliseconds are offered to the workers. Each runs once. */
  SsThreadPool *pool = NULL;
  REQUIRE(ss_thread_pool_new(2, &pool) == SS_OK);
  REQUIRE_POOL(pool);
  for (int job = 0; job < 4; ++job) CHECK_EQ_INT(check_job(pool, 2) >= 0, 1);
  for (int repeat = 0; repeat < 3; ++repeat) {
    SlowJob job = {.num_chunks = 200};
    ss_parallel_for(pool, job.num_chunks, slow_chunks, &job);
    CHECK_EQ_INT(runs_not_once(job.runs, job.num_chunks), 0);
    CHECK_EQ_INT(job.bad_range, 0);
  }
  ss_thread_pool_delete(pool);
}

#if SS_POOL_THREADS
#include <sched.h>
#include <stdatomic.h>

/* A job whose caller stalls in its first chunk until a worker has run one
 * of the caller's home chunks (thread_pool.c, "Home chunks"), or 60 s. The
 * caller yields while it waits: on a loaded machine (CI's, or two CPUs
 * shared by many processes) a caller spinning on its CPU kept the worker
 * from its own long enough to wait 5 s out. */
typedef struct StallJob {
  int runs[64];
  int slot_of[64];
  _Atomic int home_by_worker; /* a worker ran a chunk of [1, 32) */
  int waited_out;
} StallJob;

static void stall_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  StallJob *job = context;
  for (int64_t k = begin; k < end; ++k) {
    if (k == 0 && slot == 0) {
      const time_t start = time(NULL);
      while (!atomic_load(&job->home_by_worker)) {
        if (time(NULL) - start > 60) {
          job->waited_out = 1;
          break;
        }
        sched_yield();
      }
    }
    job->runs[k]++;
    job->slot_of[k] = slot;
    if (slot > 0 && k >= 1 && k < 32) atomic_store(&job->home_by_worker, 1);
  }
}
#endif

void test_thread_pool_home_chunks_taken_when_the_caller_stalls(void)
{
  /* Two threads: the caller's home is the first half of the 64 chunks. While
   * it stalls in chunk 0, the worker runs its own half, then the caller's
   * home chunks not yet claimed; each chunk runs once. (Without the
   * stealing the caller would wait its 60 s out.) */
  SsThreadPool *pool = eager_pool(2);
  REQUIRE_POOL(pool);
#if SS_POOL_THREADS
  for (int repeat = 0; repeat < 3; ++repeat) {
    StallJob job;
    memset(&job, 0, sizeof job);
    atomic_init(&job.home_by_worker, 0);
    ss_parallel_for(pool, 64, stall_chunks, &job);
    CHECK_EQ_INT(runs_not_once(job.runs, 64), 0);
    CHECK_EQ_INT(job.waited_out, 0);
    /* A worker ran home chunks: those after chunk 0 while the caller stalled
     * in it, or chunk 0 itself when the caller was descheduled before its
     * first claim (on a loaded machine the worker can finish its half and
     * take the caller's whole home first). */
    int home_by_worker = 0;
    for (int k = 0; k < 32; ++k) home_by_worker += job.slot_of[k] > 0;
    CHECK_EQ_INT(home_by_worker > 0, 1);
  }
#endif
  ss_thread_pool_delete(pool);
}

/* fork() where the pool has threads, on POSIX systems */
#if SS_POOL_THREADS && (defined(__unix__) || defined(__APPLE__))
#define FORK_TEST 1
#else
#define FORK_TEST 0
#endif

/* ThreadSanitizer cannot start threads in a child of a threaded process
 * (it dies): under it the child does not train. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#if FORK_TEST
/* The child's side of test_thread_pool_after_fork: the number of failed
 * checks (its exit code). */
typedef struct ForkedPool {
  SsThreadPool *pool;
  SsKernelSvm *ksvm;
} ForkedPool;

static int forked_child_checks(void *context)
{
  SsThreadPool *pool = ((ForkedPool *)context)->pool;
  SsKernelSvm *ksvm = ((ForkedPool *)context)->ksvm;
  int failed = 0;
  failed += !ss_thread_pool_forked(pool);
  failed += !ss_thread_pool_forked(ksvm->threads.pool);
  /* no worker here: the caller runs every chunk, once each */
  failed += check_job(pool, 100) != 0;
  failed += mt_current_failed != 0;
  ss_thread_pool_delete(pool); /* joined the parent's worker: waited for ever */
  if (!UNDER_TSAN) {
    /* a train call gives the object a pool of this process, of the same size */
    failed += ss_kernel_svm_train(ksvm) != SS_OK;
    failed += ss_thread_pool_forked(ksvm->threads.pool);
    failed += ss_thread_pool_num_slots(ksvm->threads.pool) != 3;
    check_job(ksvm->threads.pool, 100); /* every chunk once, on any thread */
    failed += mt_current_failed != 0;
  }
  ss_kernel_svm_delete(ksvm);
  return failed;
}
#endif

void test_thread_pool_after_fork(void)
{
  /* fork() copies the calling thread only: in the child the pool's workers
   * do not exist (thread_pool.c, "After fork"). The child runs a job on the
   * caller alone, deletes the pool without joining anybody, and trains the
   * object on a new pool; a hang there ends at the alarm, a failure in the
   * exit code. The parent's pool is the parent's still. */
  SsThreadPool *pool = eager_pool(2);
  REQUIRE_POOL(pool);
#if FORK_TEST
  SsData data;
  SsKernel kernel;
  const double *y = tu_four_points(&data, &kernel);
  SsKernelSvm *ksvm = y ? ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 0.1) : NULL;
  REQUIRE(ksvm);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(ksvm, 3), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(ksvm), SS_OK);
  check_job(pool, 100); /* the workers have started and run */
  CHECK(!ss_thread_pool_forked(pool));
  CHECK(!ss_thread_pool_forked(NULL));
  ForkedPool forked = {pool, ksvm};
  CHECK_EQ_INT(tu_child_exit_code(forked_child_checks, &forked, 60), 0);
  CHECK(!ss_thread_pool_forked(pool));
  check_job(pool, 100);
  ss_kernel_svm_delete(ksvm);
#endif
  ss_thread_pool_delete(pool);
}

void test_thread_pool_delete_untrained(void)
{
  SsData data;
  SsKernel kernel;
  const double *y = tu_four_points(&data, &kernel);
  REQUIRE(y);
  for (int threads = 1; threads <= 4; ++threads) {
    SsKernelSvm *ksvm = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 0.1);
    SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, &data, y, 0.1);
    REQUIRE(ksvm && svm);
    CHECK_EQ_INT(ss_kernel_svm_set_num_threads(ksvm, threads), SS_OK);
    CHECK_EQ_INT(ss_svm_set_num_threads(svm, threads), SS_OK);
    CHECK((ksvm->threads.pool != NULL) == (SS_POOL_THREADS && threads > 1));
    CHECK((svm->threads.pool != NULL) == (SS_POOL_THREADS && threads > 1));
    CHECK_EQ_INT(ss_thread_pool_num_slots(ksvm->threads.pool), SS_POOL_THREADS ? threads : 1);
    ss_kernel_svm_delete(ksvm);
    ss_svm_delete(svm);
  }
}

/* A count above SS_MAX_NUM_THREADS runs that many, and the getters say so
 * (they returned the count asked for while 256 threads ran). One pool at a
 * time: valgrind runs at most 500 threads. */
void test_thread_pool_count_capped(void)
{
  SsData data;
  SsKernel kernel;
  const double *y = tu_four_points(&data, &kernel);
  REQUIRE(y);
  SsKernelSvm *ksvm = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 0.1);
  REQUIRE(ksvm);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(ksvm, SS_MAX_NUM_THREADS + 44), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_get_num_threads(ksvm), SS_MAX_NUM_THREADS);
  ss_kernel_svm_delete(ksvm);
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, &data, y, 0.1);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_set_num_threads(svm, SS_MAX_NUM_THREADS + 1), SS_OK);
  CHECK_EQ_INT(ss_svm_get_num_threads(svm), SS_MAX_NUM_THREADS);
  CHECK_EQ_INT(ss_thread_pool_num_slots(svm->threads.pool), SS_POOL_THREADS ? SS_MAX_NUM_THREADS : 1);
  ss_svm_delete(svm);
}

/* Runs with the thread count changed between trains (2, 3, 1, 4), every
 * job offered to the workers, agree bit for bit with a serial run: the
 * kernel rows, responses and score passes of each kernel solver, and the
 * score passes of linear SDCA. */
enum { PN = 1100, PD = 5 };
static const int counts[] = {2, 3, 1, 4};

static void check_kernel_counts(const SsData *data, const double *y, SsKernelSolver solver, int bias,
                                int64_t iterations)
{
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  double *s1 = malloc(sizeof(double) * PN), *s2 = malloc(sizeof(double) * PN);
  SsKernelSvm *k[2] = {NULL, NULL};
  for (int v = 0; v < 2 && s1 && s2; ++v) {
    k[v] = ss_kernel_svm_new(solver, &kernel, data, y, 1e-3);
    if (!k[v]) break;
    CHECK_EQ_INT(ss_kernel_svm_set_seed(k[v], 9), SS_OK);
    if (bias) CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(k[v], 1), SS_OK);
    k[v]->threads.min_length = 16;
  }
  if (!s1 || !s2 || !k[0] || !k[1]) {
    CHECK(!"allocation");
  } else {
    for (size_t r = 0; r < sizeof counts / sizeof counts[0]; ++r) {
      CHECK_EQ_INT(ss_kernel_svm_set_num_threads(k[1], counts[r]), SS_OK);
      ss_thread_pool_set_adaptive(k[1]->threads.pool, false);
      for (int v = 0; v < 2; ++v) {
        CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(k[v], iterations * (int64_t)(r + 1)), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(k[v], iterations / 2), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_train(k[v]), SS_OK);
      }
      CHECK(tu_same_kernel_run(k[0], k[1], PN));
      CHECK_EQ_INT(ss_kernel_svm_decision_function(k[0], data, s1), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_decision_function(k[1], data, s2), SS_OK);
      CHECK(tu_same_bits(s1, s2, PN));
    }
    CHECK(ss_kernel_svm_get_statistics(k[0])->num_support_vectors > 16);
  }
  ss_kernel_svm_delete(k[0]);
  ss_kernel_svm_delete(k[1]);
  free(s1), free(s2);
}

void test_thread_pool_count_changed_between_trains(void)
{
  double *X = malloc(sizeof(double) * PN * PD), *y = malloc(sizeof(double) * PN);
  REQUIRE(X && y);
  tu_make_blobs(X, y, PN, PD, 0.4, 3);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, PN, PD, PD) == SS_OK);
  check_kernel_counts(&data, y, SS_KSOLVER_SBP, 0, 150);
  check_kernel_counts(&data, y, SS_KSOLVER_SDCA, 0, 300);
  check_kernel_counts(&data, y, SS_KSOLVER_SDCA, 1, 300); /* the exact solver: cache misses */
  check_kernel_counts(&data, y, SS_KSOLVER_PEGASOS, 0, 300);
  check_kernel_counts(&data, y, SS_KSOLVER_PERCEPTRON, 0, 300);
  SsSvm *l[2];
  for (int v = 0; v < 2; ++v) {
    l[v] = ss_svm_new(SS_SOLVER_SDCA, &data, y, 1e-3);
    REQUIRE(l[v]);
    CHECK_EQ_INT(ss_svm_set_epsilon(l[v], 0), SS_OK);
    CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(l[v], PN / 3), SS_OK);
    l[v]->threads.min_length = 16;
  }
  for (size_t r = 0; r < sizeof counts / sizeof counts[0]; ++r) {
    CHECK_EQ_INT(ss_svm_set_num_threads(l[1], counts[r]), SS_OK);
    ss_thread_pool_set_adaptive(l[1]->threads.pool, false);
    for (int v = 0; v < 2; ++v) {
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(l[v], 2 * PN * (int64_t)(r + 1)), SS_OK);
      CHECK_EQ_INT(ss_svm_train(l[v]), SS_OK);
    }
    CHECK(tu_same_bits(ss_svm_get_model(l[0]), ss_svm_get_model(l[1]), PD));
    const SsSvmStatistics *a = ss_svm_get_statistics(l[0]), *b = ss_svm_get_statistics(l[1]);
    CHECK(tu_same_bits(&a->objective, &b->objective, 1));
  }
  ss_svm_delete(l[0]);
  ss_svm_delete(l[1]);
  free(X), free(y);
}
