/* visit_order.c -- how much of an epoch of SGD, SVMSGD2 and SGD-QN is the
 * random visiting order? Runs each solver's typed inner loop (the code
 * ss_svm_train runs, reached through the core's internal header) for one
 * epoch over CSR float64 data, once in file order and once in the
 * permutation of epoch 0, and times one pass of inner products over the same
 * rows. Process CPU time, best of 5. lambda 1e-4, t0 1e5, squared hinge.
 *
 * The data are four raw files written from Python, e.g. for covtype:
 *
 *   python -c "from stochsvm.datasets import load_benchmark; import numpy as np;
 *   X, y, _, _ = load_benchmark('covtype'); X.indptr.astype(np.int64).tofile('/tmp/p.bin');
 *   X.indices.astype(np.int32).tofile('/tmp/j.bin'); X.data.tofile('/tmp/v.bin'); y.tofile('/tmp/y.bin')"
 *   meson setup build-c -Dpython=false && ninja -C build-c
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc/core bench/visit_order.c \
 *      build-c/libstochsvm.a -lm -o /tmp/visit_order
 *   /tmp/visit_order /tmp/p.bin /tmp/j.bin /tmp/v.bin /tmp/y.bin 54
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

static void *read_all(const char *path, size_t *bytes)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)ftell(f);
  rewind(f);
  void *p = malloc(*bytes);
  if (p && fread(p, 1, *bytes, f) != *bytes) {
    free(p);
    p = NULL;
  }
  fclose(f);
  return p;
}

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc != 6) {
    fprintf(stderr, "usage: %s indptr.bin indices.bin values.bin labels.bin dimension\n", argv[0]);
    return 2;
  }
  size_t bytes;
  int64_t *P = read_all(argv[1], &bytes);
  const int64_t n = (int64_t)(bytes / 8) - 1;
  int32_t *J = read_all(argv[2], &bytes);
  double *V = read_all(argv[3], &bytes);
  double *y = read_all(argv[4], &bytes);
  const int64_t d = atoll(argv[5]);
  SsData data;
  if (!P || !J || !V || !y || ss_data_init_csr(&data, SS_DTYPE_FLOAT64, V, P, J, n, d) != SS_OK) {
    fprintf(stderr, "cannot read the data\n");
    return 1;
  }
  const SsSolver solvers[3] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN};
  const char *names[3] = {"Pegasos SGD", "SVMSGD2", "SGD-QN"};
  int64_t *perm = malloc((size_t)n * sizeof *perm);
  double *w = calloc((size_t)d, sizeof *w);
  double pass = 1e30, sink = 0;
  for (int r = 0; r < 5; ++r) {
    double t = cpu_seconds();
    for (int64_t i = 0; i < n; ++i) sink += ss_data_inner_product(&data, i, w);
    t = cpu_seconds() - t;
    pass = t < pass ? t : pass;
  }
  printf("one pass of <w, x_i> in file order: %.2f ms (%g)\n", pass * 1e3, sink);
  for (int s = 0; s < 3; ++s) {
    for (int random = 0; random < 2; ++random) {
      SsSvm *svm = ss_svm_new(solvers[s], &data, y, 1e-4);
      ss_svm_set_loss(svm, SS_LOSS_HINGE2);
      ss_svm_set_t0(svm, 1e5);
      if (random)
        ss_rng_permutation(perm, n, 0, 0);
      else
        for (int64_t i = 0; i < n; ++i) perm[i] = i;
      SsStepsFunction steps = s == 0 ? ss_sgd_steps(&svm->source)
                              : s == 1 ? ss_svmsgd2_steps(&svm->source)
                                       : ss_sgdqn_steps(&svm->source);
      double best = 1e30;
      for (int r = 0; r < 5; ++r) {
        SsEpochRun run = {.svm = svm, .perm = perm, .epoch_start = 0};
        svm->iteration = 0;
        double t = cpu_seconds();
        steps(&run, 0, n);
        t = cpu_seconds() - t;
        best = t < best ? t : best;
      }
      printf("%-12s %-10s %8.2f ms  (%.1f x the pass)\n", names[s], random ? "random" : "file order",
             best * 1e3, best / pass);
      ss_svm_delete(svm);
    }
  }
  free(perm);
  free(w);
  free(P);
  free(J);
  free(V);
  free(y);
  return 0;
}
