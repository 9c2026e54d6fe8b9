/* visit_order.c -- how much of an epoch of SGD, SVMSGD2 and SGD-QN is the
 * visiting order, and what does a train() call cost beyond its epochs?
 * Trains each solver over CSR float64 data through the public API in the
 * orders of ss_svm_set_visit_order, and times one pass of inner products
 * over the same rows. Process CPU time, best of 5, a fresh object for each
 * run, lambda 1e-4, t0 1e5, squared hinge, one diagnostic (the run's last).
 *
 * An epoch's cost is L = (T_6 - T_1) / 5, T_k the best time of a k-epoch
 * train() call (not reading the statistics): what a call costs beyond its
 * epochs (set-up, and the closing objective pass where train() makes one)
 * cancels. The overhead of a single-epoch call is T_1 / L.
 *
 * Then convergence: the primal objective after 5 epochs, for seeds 0-4, in
 * each random order (and data order, one seed: it does not depend on it),
 * with the same settings.
 *
 * Built by meson in the C-only build (bench/README.md); the data are four
 * raw files written from Python, e.g. for covtype:
 *
 *   python -c "from stochsvm._testing import load_benchmark; import numpy as np;
 *   X, y, _, _ = load_benchmark('covtype'); X.indptr.astype(np.int64).tofile('/tmp/p.bin');
 *   X.indices.astype(np.int32).tofile('/tmp/j.bin'); X.data.tofile('/tmp/v.bin'); y.tofile('/tmp/y.bin')"
 *   meson setup build-c -Dpython=false && meson compile -C build-c visit_order
 *   build-c/visit_order /tmp/p.bin /tmp/j.bin /tmp/v.bin /tmp/y.bin 54 [sorted]
 *
 * With "sorted", the rows are first reordered by label (the -1 rows, then
 * the +1 rows, each in file order): a file sorted by class.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stochsvm/svm.h"

static void *read_all(const char *path, size_t *bytes)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  void *p = size > 0 ? malloc((size_t)size) : NULL;
  *bytes = size > 0 ? (size_t)size : 0;
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

/* An object of `solver` in `order` with the benchmark's settings, for
 * `epochs` epochs per train call; NULL if the core refused. */
static SsSvm *make(SsSolver solver, SsVisitOrder order, uint64_t seed, int64_t epochs, const SsData *data,
                   const double *y)
{
  const int64_t n = data->num_data;
  SsSvm *svm = ss_svm_new(solver, data, y, 1e-4);
  if (!svm || ss_svm_set_loss(svm, SS_LOSS_HINGE2) != SS_OK || ss_svm_set_visit_order(svm, order) != SS_OK
      || ss_svm_set_seed(svm, seed) != SS_OK
      || (solver != SS_SOLVER_NONE && ss_svm_set_t0(svm, 1e5) != SS_OK)
      || ss_svm_set_epsilon(svm, 0) != SS_OK || ss_svm_set_max_num_iterations(svm, epochs * n) != SS_OK
      || ss_svm_set_diagnostic_frequency(svm, epochs * n) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* The best of 5 CPU times of a train() call of `epochs` epochs, or a
 * negative number if the core refused. */
static double best_train(SsSolver solver, SsVisitOrder order, int64_t epochs, const SsData *data,
                         const double *y)
{
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    SsSvm *svm = make(solver, order, 0, epochs, data, y);
    if (!svm) return -1;
    double t = cpu_seconds();
    SsStatus status = ss_svm_train(svm);
    t = cpu_seconds() - t;
    ss_svm_delete(svm);
    if (status != SS_OK) return -1;
    best = t < best ? t : best;
  }
  return best;
}

/* The best of 5 CPU times of `calls` train() calls of 6 / `calls` epochs
 * each on one object in data order with the default diagnostic schedule (no
 * statistics read between them), or a negative number if the core refused. */
static double best_split_calls(SsSolver solver, int calls, const SsData *data, const double *y)
{
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    SsSvm *svm = ss_svm_new(solver, data, y, 1e-4);
    if (!svm || ss_svm_set_loss(svm, SS_LOSS_HINGE2) != SS_OK || ss_svm_set_shuffle(svm, 0) != SS_OK ||
        ss_svm_set_t0(svm, 1e5) != SS_OK || ss_svm_set_epsilon(svm, 0) != SS_OK ||
        ss_svm_set_max_num_iterations(svm, 6 / calls * data->num_data) != SS_OK) {
      ss_svm_delete(svm);
      return -1;
    }
    SsStatus status = SS_OK;
    double t = cpu_seconds();
    for (int call = 0; call < calls && status == SS_OK; ++call) status = ss_svm_train(svm);
    t = cpu_seconds() - t;
    ss_svm_delete(svm);
    if (status != SS_OK) return -1;
    best = t < best ? t : best;
  }
  return best;
}

/* The primal objective after 5 epochs (NaN if training failed). */
static double objective_after_5(SsSolver solver, SsVisitOrder order, uint64_t seed, const SsData *data,
                                const double *y)
{
  SsSvm *svm = make(solver, order, seed, 5, data, y);
  double objective = 0.0 / 0.0;
  if (svm && ss_svm_train(svm) == SS_OK) objective = ss_svm_get_statistics(svm)->objective;
  ss_svm_delete(svm);
  return objective;
}

/* Reorder the rows (CSR arrays and labels) so that the labels -1 come
 * first, each class in file order: the worst case of a file sorted by
 * class, for the orders that keep memory neighbours together. */
static int sort_by_label(int64_t **P, int32_t **J, double **V, double *y, int64_t n)
{
  const int64_t nnz = (*P)[n];
  int64_t *P2 = malloc((size_t)(n + 1) * sizeof *P2);
  int32_t *J2 = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *J2);
  double *V2 = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *V2), *y2 = malloc((size_t)n * sizeof *y2);
  if (!P2 || !J2 || !V2 || !y2) {
    free(P2);
    free(J2);
    free(V2);
    free(y2);
    return 1;
  }
  int64_t row = 0;
  P2[0] = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t i = 0; i < n; ++i) {
      if ((y[i] > 0) != (pass == 1)) continue;
      const int64_t len = (*P)[i + 1] - (*P)[i];
      memcpy(J2 + P2[row], *J + (*P)[i], (size_t)len * sizeof *J2);
      memcpy(V2 + P2[row], *V + (*P)[i], (size_t)len * sizeof *V2);
      P2[row + 1] = P2[row] + len;
      y2[row++] = y[i];
    }
  }
  memcpy(y, y2, (size_t)n * sizeof *y);
  free(y2);
  free(*P);
  free(*J);
  free(*V);
  *P = P2;
  *J = J2;
  *V = V2;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "sorted") == 0)) {
    fprintf(stderr, "usage: %s indptr.bin indices.bin values.bin labels.bin dimension [sorted]\n", argv[0]);
    return 2;
  }
  size_t bytes;
  int64_t *P = read_all(argv[1], &bytes);
  const int64_t n = (int64_t)(bytes / 8) - 1;
  int32_t *J = read_all(argv[2], &bytes);
  double *V = read_all(argv[3], &bytes);
  double *y = read_all(argv[4], &bytes);
  const int64_t d = atoll(argv[5]);
  double *w = calloc(d > 0 ? (size_t)d : 1, sizeof *w);
  SsData data;
  if (!P || !J || !V || !y || !w || (argc == 7 && sort_by_label(&P, &J, &V, y, n) != 0) ||
      ss_data_init_csr(&data, SS_DTYPE_FLOAT64, V, P, J, n, d) != SS_OK) {
    fprintf(stderr, "cannot read the data\n");
    return 1;
  }
  double pass = 1e30, sink = 0;
  for (int r = 0; r < 5; ++r) {
    double t = cpu_seconds();
    for (int64_t i = 0; i < n; ++i) sink += ss_data_inner_product(&data, i, w);
    t = cpu_seconds() - t;
    pass = t < pass ? t : pass;
  }
  printf("one pass of <w, x_i> in file order: %.2f ms (%g)\n", pass * 1e3, sink);
  const double evaluation = best_train(SS_SOLVER_NONE, SS_VISIT_DATA_ORDER, 1, &data, y);
  printf("an objective pass (train() with solver none): %.2f ms\n\n", evaluation * 1e3);

  const SsSolver solvers[3] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN};
  const char *names[3] = {"Pegasos SGD", "SVMSGD2", "SGD-QN"};
  enum { NUM_ORDERS = 4 };
  const SsVisitOrder orders[NUM_ORDERS] = {SS_VISIT_DATA_ORDER, SS_VISIT_PERMUTATION, SS_VISIT_BLOCKS,
                                           SS_VISIT_INTERLEAVED};
  const char *order_names[NUM_ORDERS] = {"file order", "random", "blocks", "interleave"};
  int status = evaluation < 0;
  printf("%-12s %-10s %9s %9s %10s %11s\n", "solver", "order", "epoch L", "1-epoch", "T_1 / L",
         "L / file L");
  for (int s = 0; s < 3 && !status; ++s) {
    double file_order = 0;
    for (int o = 0; o < NUM_ORDERS; ++o) {
      const double one = best_train(solvers[s], orders[o], 1, &data, y);
      const double six = best_train(solvers[s], orders[o], 6, &data, y);
      if (one < 0 || six < 0) {
        fprintf(stderr, "%s: training failed\n", names[s]);
        status = 1;
        break;
      }
      const double epoch = (six - one) / 5;
      if (o == 0) file_order = epoch;
      printf("%-12s %-10s %6.2f ms %6.2f ms %9.2fx %10.2fx\n", names[s], order_names[o], epoch * 1e3,
             one * 1e3, one / epoch, epoch / file_order);
    }
  }
  const double split = status ? -1 : best_split_calls(SS_SOLVER_SVMSGD2, 6, &data, y);
  const double whole = status ? -1 : best_split_calls(SS_SOLVER_SVMSGD2, 1, &data, y);
  if (split > 0 && whole > 0)
    printf("\nSVMSGD2, file order, default diagnostic schedule: 6 one-epoch calls on one object "
           "%.2f ms, one 6-epoch call %.2f ms\n", split * 1e3, whole * 1e3);
  printf("\nprimal objective after 5 epochs (seeds 0-4; file order does not depend on the seed)\n");
  for (int s = 0; s < 3 && !status; ++s) {
    for (int o = 0; o < NUM_ORDERS; ++o) {
      double sum = 0;
      const int seeds = o == 0 ? 1 : 5;
      printf("%-12s %-10s", names[s], order_names[o]);
      for (int seed = 0; seed < seeds; ++seed) {
        const double objective = objective_after_5(solvers[s], orders[o], (uint64_t)seed, &data, y);
        printf(" %.6f", objective);
        sum += objective;
      }
      printf("   mean %.6f\n", sum / seeds);
    }
  }
  free(w);
  free(P);
  free(J);
  free(V);
  free(y);
  return status;
}
