/* warm_finish.c -- what the kernel SDCA finish of a further train call costs,
 * through the public API of a C-only build of the core: bench/warm_finish.py
 * compiles it against two builds (the finish that starts from alpha = 0 and
 * the one that starts from the last finish's state) and runs them in turn.
 *
 * One object trains on CSR float64 data (raw files, as bench/kernel_speed.py
 * writes them), rbf kernel, the finish on (SS_KERNEL_SDCA_FINISH_ON) under a
 * cap of @p epochs epochs per train call, so that each call is a short run
 * and a finish: a user who retrains step by step. The calls go along a list
 * of C values (C = 1/(lambda n): the same C twice is a further call on the
 * same problem; a new C is set_lambda). Each call prints one line:
 *
 *   call C cpu_seconds finish_cpu_seconds kernel_evaluations finish_evaluations
 *        finish_epochs relative_gap primal_objective status
 *
 * where the finish's share is measured from the run's last diagnostic (the
 * diagnostic callback: CPU clock and the object's kernel evaluations then)
 * to the end of the call.
 *
 *   warm_finish P J V Y d solver gamma epochs C1 [C2 ...]
 *
 * solver: "pegasos" (bias-free) or "bsca" (the unregularized bias, budget n:
 * the finish applies).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raw_file.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The CPU clock and the kernel evaluations at the run's last diagnostic. */
typedef struct LastDiagnostic {
  double cpu;
  int64_t evaluations;
} LastDiagnostic;

static int on_diagnostic(const SsKernelSvm *svm, void *user)
{
  LastDiagnostic *last = user;
  last->cpu = cpu_seconds();
  last->evaluations = ss_kernel_svm_get_num_kernel_evaluations(svm);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 10) {
    fprintf(stderr, "usage: warm_finish P J V Y d solver gamma epochs C1 [C2 ...]\n");
    return 2;
  }
  RawProblem p;
  if (read_raw_problem(argv + 1, &p)) return 1;
  const int64_t d = atoll(argv[5]), n = p.n;
  const int bsca = strcmp(argv[6], "bsca") == 0;
  const double gamma = atof(argv[7]);
  const int64_t epochs = atoll(argv[8]);
  SsData data;
  ss_data_init_csr(&data, SS_DTYPE_FLOAT64, p.values, p.indptr, p.indices, n, d);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, gamma, 0, 3);
  const double C0 = atof(argv[9]);
  SsKernelSvm *svm = ss_kernel_svm_new(bsca ? SS_KSOLVER_BSCA : SS_KSOLVER_PEGASOS, &kernel, &data, p.labels,
                                       1.0 / (C0 * (double)n));
  LastDiagnostic last = {0, 0};
  if (!svm || ss_kernel_svm_set_sdca_finish(svm, SS_KERNEL_SDCA_FINISH_ON) != SS_OK ||
      ss_kernel_svm_set_max_num_iterations(svm, epochs * n) != SS_OK ||
      ss_kernel_svm_set_diagnostic_function(svm, on_diagnostic, &last) != SS_OK ||
      (bsca && (ss_kernel_svm_set_budget(svm, n) != SS_OK || ss_kernel_svm_set_unregularized_bias(svm, 1) != SS_OK))) {
    fprintf(stderr, "cannot set up the object\n");
    return 1;
  }
  for (int a = 9; a < argc; ++a) {
    const double C = atof(argv[a]);
    /* (set_lambda restarts Pegasos: a further call on the same C keeps it) */
    if (a > 9 && C != atof(argv[a - 1]) && ss_kernel_svm_set_lambda(svm, 1.0 / (C * (double)n)) != SS_OK)
      return 1;
    const int64_t before = ss_kernel_svm_get_num_kernel_evaluations(svm);
    const double t0 = cpu_seconds();
    const SsStatus status = ss_kernel_svm_train(svm);
    const double t1 = cpu_seconds();
    if (status != SS_OK) {
      fprintf(stderr, "train: %s\n", ss_kernel_svm_get_last_error(svm));
      return 1;
    }
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
    const int64_t after = ss_kernel_svm_get_num_kernel_evaluations(svm);
    printf("%d %g %.6f %.6f %lld %lld %g %.3e %.12g %d\n", a - 8, C, t1 - t0, t1 - last.cpu,
           (long long)(after - before), (long long)(after - last.evaluations), st->finish_epochs,
           st->duality_gap / st->dual_objective, st->primal_objective, (int)st->status);
  }
  ss_kernel_svm_delete(svm);
  free(p.indptr);
  free(p.indices);
  free(p.values);
  free(p.labels);
  return 0;
}
