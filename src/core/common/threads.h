/* threads.h -- an object's threads, in one place.
 *
 * An object with num_threads > 1 owns a pool of worker threads
 * (thread_pool.h), created by its set_num_threads and joined by its delete.
 * A loop is cut into chunks with fixed boundaries and handed to
 * ss_parallel_for; only loops whose chunks write disjoint outputs and read
 * shared inputs are split, and no reduction crosses chunks in an order that
 * depends on who ran them, so a result never depends on the thread count:
 * threaded == serial, bit for bit.
 */
#ifndef STOCHSVM_THREADS_H
#define STOCHSVM_THREADS_H

#include <stdint.h>

#include "thread_pool.h"

/** A loop shorter than this runs on the calling thread only. Handing a job
 *  to workers that wait awake costs a microsecond or two; 1024 kernel values
 *  take 10 us or more (sparse a9a rows; 64 dense features cost more), so
 *  half of them on a second core saves several times that. A kernel row of
 *  sklearn's digits (1797 entries) is split. Where the workers do not pay,
 *  the pool notices and runs the jobs alone (thread_pool.c). */
#define SS_PARALLEL_MIN_LENGTH 1024

/** An object's thread setting: count (<= 1: serial), the shortest loop
 *  worth splitting (0: SS_PARALLEL_MIN_LENGTH; tests lower it) and the
 *  object's pool (NULL: serial), borrowed by the copies passed around. */
typedef struct SsThreads {
  int count;
  int64_t min_length;
  SsThreadPool *pool;
} SsThreads;

/** The pool a loop of @p length items runs on: NULL (serial) when the loop
 *  is short or the object has no pool. */
static inline SsThreadPool *ss_threads_pool(SsThreads threads, int64_t length)
{
  const int64_t min_length = threads.min_length > 0 ? threads.min_length : SS_PARALLEL_MIN_LENGTH;
  return threads.count > 1 && length >= min_length ? threads.pool : NULL;
}

/** Set the count to @p num_threads (>= 1) and start or stop the pool to
 *  match. @return SS_OK; SS_ERR_ALLOC with @p threads unchanged. */
SsStatus ss_threads_set_count(SsThreads *threads, int num_threads);

/** In a process forked from the one that made the pool, replace it by a
 *  new pool of the same count (the old one's workers are the parent's);
 *  else nothing. Each train call begins with it. @return SS_OK;
 *  SS_ERR_ALLOC, the object then serial (count 1). */
SsStatus ss_threads_after_fork(SsThreads *threads);

/** Join and free the pool; the count returns to 1. */
void ss_threads_free(SsThreads *threads);

#endif /* STOCHSVM_THREADS_H */
