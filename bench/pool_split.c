/* pool_split.c -- which of a C program's instructions the threads can
 * share: a measuring shim for callgrind, linked into a bench program
 * (kernel_eval.c) with -Wl,--wrap=ss_parallel_for.
 *
 * Every job the library hands to ss_parallel_for runs here on the calling
 * thread, whole, and passes through one of two functions that are neither
 * inlined nor folded into one (noipa, -fno-ipa-icf): pooled_job, for a
 * job the real ss_parallel_for would offer to the workers (a pool, two
 * chunks or more), and serial_job for the rest (no pool: the loop was
 * shorter than the threads' threshold, or the object has one thread).
 * Who runs a chunk never changes what it computes, so the program
 * computes what it computes with threads, and callgrind's
 * inclusive count of pooled_job is the work two threads can split; the
 * rest of the run is serial. Amdahl's bound for k threads with serial
 * share s is 1 / (s + (1 - s) / k). The pool's hand-off and a worker's
 * lateness are not instructions of the job: the number of pooled jobs
 * (pooled_job's calls) and their mean size say how much they can weigh.
 *
 *   gcc -O2 -fno-ipa-icf -DKERNEL_EVAL_THREADS -Iinclude -Isrc/core/common bench/kernel_eval.c
 *       bench/pool_split.c <build>/libstochsvm.a -Wl,--wrap=ss_parallel_for -lm -lpthread
 *   valgrind --tool=callgrind --toggle-collect=ss_kernel_svm_train ./a.out ... 2 out
 *   callgrind_annotate --inclusive=yes callgrind.out.PID | grep -E 'PROGRAM|pooled_job'
 *
 * (bench/results/kernel_speed.md, "Round ten (ksdca2t)", for kernel SDCA.)
 */
#include <stdint.h>

#include "thread_pool.h"

__attribute__((noinline, noipa)) static void pooled_job(int64_t num_chunks, SsParallelFn fn,
                                                 void *context)
{
  fn(context, 0, num_chunks, 0);
  __asm__ volatile("" ::: "memory"); /* keep the call a call, not a tail jump */
}

__attribute__((noinline, noipa)) static void serial_job(int64_t num_chunks, SsParallelFn fn,
                                                 void *context)
{
  fn(context, 0, num_chunks, 0);
  __asm__ volatile("" ::: "memory");
}

void __wrap_ss_parallel_for(SsThreadPool *pool, int64_t num_chunks, SsParallelFn fn,
                            void *context);

void __wrap_ss_parallel_for(SsThreadPool *pool, int64_t num_chunks, SsParallelFn fn,
                            void *context)
{
  if (num_chunks <= 0) return;
  if (pool && num_chunks >= 2) {
    pooled_job(num_chunks, fn, context);
  } else {
    serial_job(num_chunks, fn, context);
  }
}
