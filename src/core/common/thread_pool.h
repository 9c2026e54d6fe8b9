/* thread_pool.h -- the worker threads one object owns (thread_pool.c).
 *
 * A job is a number of chunks with fixed boundaries; fn(context, begin, end,
 * slot) runs the chunks [begin, end) and writes outputs no other chunk
 * writes, so a result never depends on who ran which chunk. The calling
 * thread takes part and never waits for a worker that has not started a
 * chunk: it waits only for chunks a worker has claimed.
 */
#ifndef STOCHSVM_THREAD_POOL_H
#define STOCHSVM_THREAD_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "atomics.h"
#include "stochsvm/stochsvm.h"

/** 1 where the pool has threads: POSIX threads and C11 atomics, and no
 *  -DSS_NO_THREADS; else 0, and every pool is NULL (serial). */
#if !defined(SS_NO_THREADS) && SS_HAVE_ATOMICS && \
    (defined(__unix__) || defined(__APPLE__) || defined(SS_HAVE_PTHREADS))
#define SS_POOL_THREADS 1
#else
#define SS_POOL_THREADS 0
#endif

typedef struct SsThreadPool SsThreadPool;

/** Runs chunks [begin, end) of a job. @p slot in [0, ss_thread_pool_num_slots)
 *  names the thread that runs them (0: the caller), for per-thread scratch. */
typedef void (*SsParallelFn)(void *context, int64_t begin, int64_t end, int slot);

/** A pool for @p num_threads threads in all: the caller and num_threads - 1
 *  workers. *pool is NULL (serial) when num_threads <= 1, where the build has
 *  no threads, or when no worker could be started; a worker that cannot be
 *  started leaves its share to the others.
 *  @return SS_OK; SS_ERR_ALLOC when the pool's memory cannot be allocated. */
SsStatus ss_thread_pool_new(int num_threads, SsThreadPool **pool);

/** Stops and joins the workers, frees the pool. NULL-safe. In a process
 *  forked from the one that made the pool, frees its memory only: the
 *  workers are the parent's (thread_pool.c, "After fork"). */
void ss_thread_pool_delete(SsThreadPool *pool);

/** Whether @p pool was made by another process, of which this one is a
 *  fork(): none of its workers runs here. False for NULL and without threads. */
bool ss_thread_pool_forked(const SsThreadPool *pool);

/** The number of slots fn may see: 1 + the workers (1 for NULL). */
int ss_thread_pool_num_slots(const SsThreadPool *pool);

/** Whether the caller measures and runs jobs alone while the workers do not
 *  make them faster (default true); tests turn it off, so that every job of
 *  two or more chunks is offered to the workers. */
void ss_thread_pool_set_adaptive(SsThreadPool *pool, bool adaptive);

/** The workers pay at most this times the caller's time per chunk alone
 *  (once they pay; coming back, 1) ... */
#define SS_POOL_PAR_GAIN 0.85
/** ... and, the gaps between jobs included, at most this times it. */
#define SS_POOL_GAP_SLACK 1.02

/** An adaptive pool's rule (thread_pool.c): whether the workers pay, from
 *  the wall time per chunk of the latest parallel and solo periods
 *  (@p parallel_rate, @p solo_rate) and the same with the gaps before the
 *  jobs (@p parallel_total, @p solo_total). While @p paying, the workers
 *  must make the jobs clearly faster (SS_POOL_PAR_GAIN); once they do not
 *  pay, a probe no slower per chunk brings them back. Both: the totals at
 *  most SS_POOL_GAP_SLACK times solo's. */
bool ss_thread_pool_workers_pay(bool paying, double parallel_rate, double solo_rate,
                                double parallel_total, double solo_total);

/** Runs chunks 0..num_chunks-1 of fn, on the pool's threads and the caller,
 *  and returns when all have run. Serial (one call fn(context, 0,
 *  num_chunks, 0)) for a NULL pool, fewer than two chunks, or a pool
 *  already running a job of another caller; while the caller runs alone
 *  (ss_thread_pool_set_adaptive), on the caller in batches of 1, 2, 4, ...
 *  chunks, the workers taking part in what is left after a few
 *  milliseconds. */
void ss_parallel_for(SsThreadPool *pool, int64_t num_chunks, SsParallelFn fn, void *context);

#endif /* STOCHSVM_THREAD_POOL_H */
