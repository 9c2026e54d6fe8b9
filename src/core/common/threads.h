/* threads.h -- the core's optional OpenMP, in one place.
 *
 * Built with OpenMP (meson finds it: dependency('openmp', required: false)),
 * a loop marked SS_PARALLEL_FOR runs on the object's num_threads threads;
 * without it the pragma is ignored and the loop runs serially. Only loops
 * whose iterations write disjoint outputs and read shared inputs are marked,
 * and no reduction crosses threads, so a result never depends on the thread
 * count: threaded == serial, bit for bit.
 */
#ifndef STOCHSVM_THREADS_H
#define STOCHSVM_THREADS_H

#include <stdint.h>

/** A loop shorter than this runs on the calling thread only: waking the
 *  team costs microseconds, a thousand kernel values about as much. */
#define SS_PARALLEL_MIN_LENGTH 2048

/** An object's thread setting: count (<= 1: serial) and the shortest loop
 *  worth splitting (0: SS_PARALLEL_MIN_LENGTH; tests lower it). */
typedef struct SsThreads {
  int count;
  int64_t min_length;
} SsThreads;

/** The number of threads a loop of @p length items gets. */
static inline int ss_threads_for(SsThreads threads, int64_t length)
{
  const int64_t min_length = threads.min_length > 0 ? threads.min_length : SS_PARALLEL_MIN_LENGTH;
  return threads.count > 1 && length >= min_length ? threads.count : 1;
}

#ifdef _OPENMP
#define SS_PRAGMA_(x) _Pragma(#x)
/** Split the next for loop statically over @p nt threads (serial if nt is 1). */
#define SS_PARALLEL_FOR(nt) SS_PRAGMA_(omp parallel for schedule(static) num_threads(nt) if((nt) > 1))
#else
#define SS_PARALLEL_FOR(nt)
#endif

#endif /* STOCHSVM_THREADS_H */
