/* atomics.h -- whether the core may use C11 atomics (<stdatomic.h>).
 *
 * C11 makes them optional: a compiler without them defines
 * __STDC_NO_ATOMICS__. Some old compilers lack the header without saying
 * so; building with -DSS_NO_ATOMICS turns them off by hand. Without them
 * the thread pool is compiled out (thread_pool.c: every job runs on the
 * calling thread), the progress counter is a volatile integer (run.h) and
 * the one-vs-rest store of shared kernel rows does not exist
 * (kernel_cache.c: ss_kernel_svm_share_kernel_rows shares nothing). No
 * result changes; only time does.
 */
#ifndef STOCHSVM_ATOMICS_H
#define STOCHSVM_ATOMICS_H

#if !defined(__STDC_NO_ATOMICS__) && !defined(SS_NO_ATOMICS)
#define SS_HAVE_ATOMICS 1
#else
#define SS_HAVE_ATOMICS 0
#endif

#endif
