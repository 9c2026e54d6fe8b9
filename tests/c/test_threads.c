/* test_threads.c -- the vectorisable exp against libm; threads inside one
 * kernel model: 1 and 2 threads give bit-identical iterates, models and
 * predictions; kernel rows, whole or by blocks, against entry-by-entry
 * values; the SBP's windowed water level against the full filling. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/common/row_kernels.h"
#include "../../src/core/common/vexp.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

/* One comparison: < 1e-15 relative where exp(x) is a normal number, within
 * one subnormal step (2^-1074) where it is subnormal, equal otherwise
 * (0, inf, NaN). Returns the relative error (0 outside the normal range). */
static double vexp_error(double x)
{
  const double got = ss_vexp(x), want = exp(x);
  if (want >= DBL_MIN && want <= DBL_MAX) {
    const double e = fabs(got - want) / want;
    CHECK(e < 1e-15);
    return e;
  }
  if (want > 0 && want < DBL_MIN) {
    CHECK(fabs(got - want) <= 0x1p-1074);
  } else if (isnan(want)) {
    CHECK(isnan(got));
  } else {
    CHECK(got == want);
  }
  return 0;
}

void test_vexp_matches_libm(void)
{
  /* A dense grid over the whole range, -750 (beyond underflow) to 712
   * (beyond overflow), with a step that is not a multiple of ln 2. */
  double worst = 0;
  const int64_t steps = 4000000;
  for (int64_t s = 0; s <= steps; ++s) {
    const double e = vexp_error(-750.0 + 1462.0 * (double)s / (double)steps);
    if (e > worst) worst = e;
  }
  /* Around 0, where the kernel's values live, finer. */
  for (int64_t s = -1000000; s <= 1000000; ++s) vexp_error((double)s * 1e-6);
  CHECK(worst < 1e-15);
  CHECK(worst > 0); /* the grid does reach inexact points */
  /* Edges: exact 1 at +-0, 1 + x at tiny x, the underflow and overflow
   * thresholds, infinities, NaN. */
  CHECK(ss_vexp(0.0) == 1.0);
  CHECK(ss_vexp(-0.0) == 1.0);
  CHECK(ss_vexp(-0x1p-1074) == 1.0);
  CHECK(ss_vexp(-1e-300) == 1.0);
  const double edges[] = {-1e-17, -1e-9,   -0.5 * 0.6931471805599453, -708.3964185322641,
                          -708.4, -745.13, -745.1332191019412, -745.2, -746.0, -1e300,
                          1.0,    709.78,  709.7827128933840, 709.8,   1e300};
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; ++k) vexp_error(edges[k]);
  CHECK(ss_vexp(-INFINITY) == 0.0);
  CHECK(ss_vexp(-746.0) == 0.0);
  CHECK(ss_vexp(INFINITY) == INFINITY);
  CHECK(isnan(ss_vexp(NAN)));
}

/* The kernel's exp: ss_vexp's bits from SS_VEXP_KERNEL_CUT to 0 (so its
 * libm comparison above carries over), +0 below the cut, and the bound
 * against libm checked again on the kernel's range. */
void test_vexp_kernel_matches_vexp(void)
{
  int64_t differ = 0;
  double worst = 0;
  const int64_t steps = 2000000;
  for (int64_t s = 0; s <= steps; ++s) {
    /* -709 to 0, a step that is no multiple of ln 2, and close to 0 finer */
    const double grid[2] = {-709.0 + 709.0 * (double)s / (double)steps, -1e-6 * (double)s};
    for (int g = 0; g < 2; ++g) {
      const double x = grid[g], got = ss_vexp_kernel(x);
      if (x >= SS_VEXP_KERNEL_CUT) {
        differ += memcmp(&got, &(double){ss_vexp(x)}, sizeof got) != 0;
        const double want = exp(x);
        if (want >= DBL_MIN) {
          const double e = fabs(got - want) / want;
          if (e > worst) worst = e;
        }
      } else {
        CHECK(got == 0.0 && !signbit(got));
      }
    }
  }
  CHECK(differ == 0);
  CHECK(worst < 1e-15);
  CHECK(worst > 0);
  /* edges: +-0, tiny, the cut and the subnormal results above it, the
   * normal range's end, below the cut, -inf, NaN */
  CHECK(ss_vexp_kernel(0.0) == 1.0);
  CHECK(ss_vexp_kernel(-0.0) == 1.0);
  CHECK(ss_vexp_kernel(-0x1p-1074) == 1.0);
  const double edges[] = {-1e-17, -0.5 * 0.6931471805599453, -708.3964185322641, -708.4,
                          -708.45, SS_VEXP_KERNEL_CUT, nextafter(SS_VEXP_KERNEL_CUT, 0.0)};
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; ++k) {
    const double got = ss_vexp_kernel(edges[k]), want = ss_vexp(edges[k]);
    CHECK(memcmp(&got, &want, sizeof got) == 0);
  }
  CHECK(ss_vexp_kernel(-708.45) > 0 && ss_vexp_kernel(-708.45) < DBL_MIN); /* subnormal */
  CHECK(ss_vexp_kernel(nextafter(SS_VEXP_KERNEL_CUT, -INFINITY)) == 0.0);
  CHECK(ss_vexp_kernel(-745.0) == 0.0);
  CHECK(ss_vexp_kernel(-1e300) == 0.0);
  CHECK(ss_vexp_kernel(-INFINITY) == 0.0);
  CHECK(isnan(ss_vexp_kernel(NAN)));
}

void test_kernel_svm_num_threads_setter(void)
{
  SsData data;
  SsKernel kernel;
  const double *y = tu_four_points(&data, &kernel);
  REQUIRE(y);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 0.1);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_kernel_svm_get_num_threads(svm), 1);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(NULL, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, -3), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_get_num_threads(svm), 1);
  CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, 3), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_get_num_threads(svm), 3);
  ss_kernel_svm_delete(svm);
}

/* One run of check_threads_bitwise_on: the problem and how long to train. */
typedef struct BitwiseRun {
  SsKernelSolver solver;
  const SsData *data;
  const double *y;
  double gamma, lambda;
  int64_t iterations;
  int bias;
  int64_t min_support_vectors; /* the model must have more */
} BitwiseRun;

/* Train on 1 and on 2 threads, the threshold of a threaded loop (threads.h)
 * lowered to 16 and the pool not adaptive (thread_pool.c), so that every
 * split job is offered to the worker; iterates, statistics and the
 * predictions must agree bit for bit. */
static void check_threads_bitwise_on(const BitwiseRun *run)
{
  const int64_t n = run->data->num_data;
  double *s1 = malloc(sizeof(double) * n), *s2 = malloc(sizeof(double) * n);
  REQUIRE(s1 && s2);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, run->gamma, 0, 1) == SS_OK);
  SsKernelSvm *svm[2];
  for (int k = 0; k < 2; ++k) {
    svm[k] = ss_kernel_svm_new(run->solver, &kernel, run->data, run->y, run->lambda);
    REQUIRE(svm[k]);
    CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm[k], k + 1), SS_OK);
    svm[k]->threads.min_length = 16;
    ss_thread_pool_set_adaptive(svm[k]->threads.pool, false);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], run->iterations), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm[k], run->iterations), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_seed(svm[k], 5), SS_OK);
    if (run->bias) CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm[k], 1), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
  }
  CHECK(tu_same_kernel_run(svm[0], svm[1], n));
  const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(svm[0]);
  const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(svm[1]);
  CHECK(tu_same_bits(&a->primal_objective, &b->primal_objective, 1));
  CHECK(tu_same_bits(&a->dual_objective, &b->dual_objective, 1));
  CHECK_EQ_INT(a->num_kernel_evaluations, b->num_kernel_evaluations);
  CHECK_EQ_INT(a->num_support_vectors, b->num_support_vectors);
  CHECK(a->num_support_vectors > run->min_support_vectors);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm[0], run->data, s1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm[1], run->data, s2), SS_OK);
  CHECK(tu_same_bits(s1, s2, n));
  ss_kernel_svm_delete(svm[0]);
  ss_kernel_svm_delete(svm[1]);
  free(s1), free(s2);
}

/* The non-zeros of the dense n x d matrix X as CSR arrays. */
static void csr_of_nonzeros(const double *X, int64_t n, int64_t d, int64_t *indptr,
                            int32_t *indices, double *values)
{
  int64_t nnz = 0;
  indptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j) {
      if (X[i * d + j] != 0) {
        indices[nnz] = (int32_t)j;
        values[nnz++] = X[i * d + j];
      }
    }
    indptr[i + 1] = nnz;
  }
}

/* A small problem, so every kernel row is split and the test stays fast on
 * a loaded machine. TN is not a multiple of the row block (kernel.c), so
 * the blocks are uneven. */
enum { TN = 700, TD = 7 };

static void check_threads_bitwise(SsKernelSolver solver, int64_t iterations, int sparse, int bias)
{
  double *X = malloc(sizeof(double) * TN * TD), *y = malloc(sizeof(double) * TN);
  int64_t *indptr = malloc(sizeof(int64_t) * (TN + 1));
  int32_t *indices = malloc(sizeof(int32_t) * TN * TD);
  double *values = malloc(sizeof(double) * TN * TD);
  REQUIRE(X && y && indptr && indices && values);
  tu_make_blobs(X, y, TN, TD, 0.3, 11);
  for (int64_t k = 0; k < TN * TD; ++k) {
    if ((k / TD + k % TD) % 3 == 0) X[k] = 0;
  }
  csr_of_nonzeros(X, TN, TD, indptr, indices, values);
  SsData data;
  if (sparse) {
    REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, values, indptr, indices, TN, TD) == SS_OK);
  } else {
    REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, TN, TD, TD) == SS_OK);
  }
  const BitwiseRun run = {solver, &data, y, 0.5, 1e-3, iterations, bias, 16};
  check_threads_bitwise_on(&run);
  free(X), free(y), free(indptr), free(indices), free(values);
}

void test_kernel_threads_bitwise(void)
{
  check_threads_bitwise(SS_KSOLVER_SBP, 200, 0, 0);
  check_threads_bitwise(SS_KSOLVER_SBP, 200, 1, 0);
  check_threads_bitwise(SS_KSOLVER_SBP, 200, 1, 1); /* the biased levels: the classes' windows */
  check_threads_bitwise(SS_KSOLVER_SDCA, 300, 1, 0);
  check_threads_bitwise(SS_KSOLVER_SDCA, 300, 0, 0);
  check_threads_bitwise(SS_KSOLVER_PEGASOS, 300, 0, 0);
  check_threads_bitwise(SS_KSOLVER_PERCEPTRON, 300, 1, 0);
}

/* Kernel SDCA with the support vectors' rows split into blocks on the
 * threads during the steps (m > 3 blocks: the partial sums one per cache
 * line, kernel_solver_helpers.c) and the final pass's scores by slots,
 * on 0/1-valued CSR rows (a9a's path) and on dense rows. */
enum { SN = 1500, SD = 9 };

void test_kernel_sdca_threads_split_rows(void)
{
  double *X = malloc(sizeof(double) * SN * SD), *y = malloc(sizeof(double) * SN);
  int64_t *indptr = malloc(sizeof(int64_t) * (SN + 1));
  int32_t *indices = malloc(sizeof(int32_t) * SN * SD);
  double *ones = malloc(sizeof(double) * SN * SD), *bits = malloc(sizeof(double) * SN * SD);
  REQUIRE(X && y && indptr && indices && ones && bits);
  tu_make_blobs(X, y, SN, SD, 0.3, 17);
  /* the 0/1 rows: feature j is on where the blob's coordinate is above
   * the feature's threshold */
  for (int64_t k = 0; k < SN * SD; ++k) bits[k] = X[k] > 0.2 * (double)(k % SD % 3) - 0.2;
  csr_of_nonzeros(bits, SN, SD, indptr, indices, ones);
  SsData csr, dense;
  REQUIRE(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, ones, indptr, indices, SN, SD) == SS_OK);
  REQUIRE(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, X, SN, SD, SD) == SS_OK);
  const int64_t blocks3 = 3 * SS_KERNEL_ROW_BLOCK;
  const BitwiseRun on_csr = {SS_KSOLVER_SDCA, &csr, y, 0.3, 1e-4, 1200, 0, blocks3};
  const BitwiseRun on_dense = {SS_KSOLVER_SDCA, &dense, y, 0.3, 1e-4, 1200, 0, blocks3};
  check_threads_bitwise_on(&on_csr);
  check_threads_bitwise_on(&on_dense);
  free(X), free(y), free(indptr), free(indices), free(ones), free(bits);
}

/* The check that X did not change since set_data runs on the threads in
 * chunks of 1024 rows (kernel_svm.c): it names the first changed row, as
 * the serial pass does, wherever the changes lie among the chunks. */
void test_kernel_changed_rows_on_threads(void)
{
  enum { CN = 3000, CD = 2 };
  double *X = malloc(sizeof(double) * CN * CD), *y = malloc(sizeof(double) * CN);
  REQUIRE(X && y);
  tu_make_blobs(X, y, CN, CD, 0.5, 5);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, CN, CD, CD) == SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  /* rows changed, and the row each case must name */
  const int64_t changed[][2] = {{2999, 1500}, {2999, -1}, {1023, 1024}, {0, 2048}};
  const int64_t named[] = {1500, 2999, 1023, 0};
  for (int threads = 1; threads <= 2; ++threads) {
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1e-2);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, threads), SS_OK);
    ss_thread_pool_set_adaptive(svm->threads.pool, false);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 10), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    for (size_t c = 0; c < sizeof named / sizeof named[0]; ++c) {
      double saved[2];
      for (int k = 0; k < 2; ++k) {
        if (changed[c][k] < 0) continue;
        saved[k] = X[changed[c][k] * CD];
        X[changed[c][k] * CD] += 1.0;
      }
      char text[64];
      snprintf(text, sizeof text, "row %lld of the data X has other values", (long long)named[c]);
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_BAD_DATA);
      CHECK(strstr(ss_kernel_svm_get_last_error(svm), text) != NULL);
      for (int k = 0; k < 2; ++k) {
        if (changed[c][k] >= 0) X[changed[c][k] * CD] = saved[k];
      }
    }
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK); /* the values restored */
    ss_kernel_svm_delete(svm);
  }
  free(X), free(y);
}

/* Collects the blocks of ss_kernel_row_blocks into a row, and counts them. */
typedef struct Collect {
  double *row;
  int64_t calls;
} Collect;

static void collect_block(void *context, int64_t block, int64_t lo, int64_t hi, const double *k)
{
  Collect *c = context;
  CHECK_EQ_INT(lo, block * SS_KERNEL_ROW_BLOCK);
  for (int64_t j = lo; j < hi; ++j) c->row[j] = k[j - lo];
#ifdef _OPENMP
#pragma omp atomic
#endif
  c->calls++;
}

/* Rows of an rbf kernel, CSR with rows of 0 to 5 entries (so two consecutive
 * rows have every combination of lengths and parities), dense, and CSR with
 * every value 1 (ss_data_unit_values, whose rows skip the values): the row
 * of ss_kernel_row_threads and the blocks of ss_kernel_row_blocks, on 1 and
 * 2 threads, over all rows and over a list of rows, equal bit for bit the
 * entry-by-entry value ss_kernel_value(<x_j, z>) with the dot product of
 * row_kernels.h. */
void test_kernel_row_blocks_match_entries(void)
{
  enum { N = 700, D = 9 };
  int64_t indptr[N + 1], rows[N];
  int32_t indices[N * 5];
  double values[N * 5], ones[N * 5], dense[N * D], norms2[N], want[N], got[N], zd[D];
  int64_t nnz = 0;
  indptr[0] = 0;
  uint64_t state = 7;
  for (int64_t i = 0; i < N; ++i) {
    for (int64_t j = 0; j < D; ++j) dense[i * D + j] = 0;
    const int64_t len = (i * 7 + i / 3) % 6;
    for (int64_t k = 0; k < len; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int32_t col = (int32_t)((k * 2 + i) % D);
      const double v = (double)(state >> 11) * 0x1p-53 - 0.25;
      if (dense[i * D + col] != 0) continue;
      indices[nnz] = col;
      values[nnz++] = v;
      dense[i * D + col] = v;
    }
    /* CSR indices must be sorted: sort this row's few entries */
    for (int64_t a = indptr[i]; a < nnz; ++a) {
      for (int64_t b = a + 1; b < nnz; ++b) {
        if (indices[b] < indices[a]) {
          int32_t ti = indices[a];
          indices[a] = indices[b], indices[b] = ti;
          double tv = values[a];
          values[a] = values[b], values[b] = tv;
        }
      }
    }
    indptr[i + 1] = nnz;
    rows[i] = (i * 389) % N;
  }
  for (int64_t k = 0; k < nnz; ++k) ones[k] = 1.0;
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.7, 0, 1) == SS_OK);
  /* layouts: CSR, dense, CSR of 0/1 features (the rows skip the values) */
  for (int layout = 0; layout < 3; ++layout) {
    SsData data;
    const double *csr = layout == 2 ? ones : values;
    if (layout != 1) {
      REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, csr, indptr, indices, N, D) == SS_OK);
    } else {
      REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, dense, N, D, D) == SS_OK);
    }
    const bool unit = ss_data_unit_values(&data);
    CHECK(unit == (layout == 2));
    for (int64_t i = 0; i < N; ++i) norms2[i] = ss_data_row_squared_norm(&data, i);
    /* a query with every entry non-zero, so every product counts */
    double z_norm2 = 0;
    for (int64_t j = 0; j < D; ++j) {
      zd[j] = 0.3 - 0.07 * (double)j;
      z_norm2 += zd[j] * zd[j];
    }
    for (int listed = 0; listed < 2; ++listed) {
      const int64_t *list = listed ? rows : NULL;
      for (int64_t k = 0; k < N; ++k) {
        const int64_t r = list ? list[k] : k;
        const double dot =
            layout != 1 ? ss_csr_dot_f64(csr + indptr[r], indices + indptr[r],
                                         indptr[r + 1] - indptr[r], zd)
                        : ss_dense_dot_f64(dense + r * D, D, zd);
        want[k] = ss_kernel_value(&kernel, dot, norms2[r], z_norm2);
      }
      for (int threads = 1; threads <= 2; ++threads) {
        const SsThreads t = {.count = threads, .min_length = 16};
        for (int64_t k = 0; k < N; ++k) got[k] = -1;
        ss_kernel_row_threads(&kernel, &data, norms2, list, N, zd, z_norm2, 0, got, t);
        CHECK(tu_same_bits(got, want, N));
        Collect c = {got, 0};
        for (int64_t k = 0; k < N; ++k) got[k] = -1;
        ss_kernel_row_blocks(&kernel, &data, unit ? SS_ROWS_UNIT_VALUES : 0u, norms2, list, N, zd,
                             z_norm2, t, collect_block, &c);
        CHECK(tu_same_bits(got, want, N));
        CHECK_EQ_INT(c.calls, ss_kernel_row_num_blocks(N));
      }
    }
  }
}

/* The rbf row's values (kernel.c: the loops of SS_VECTOR_CLONES, AVX2 or
 * AVX-512 where the CPU has them) against the scalar ss_kernel_value, bit
 * for bit, over exponents from 0 down past underflow, whole rows and lists
 * of rows, with lengths that leave every vector tail. */
void test_kernel_rbf_row_matches_scalar(void)
{
  enum { N = 1003 };
  double x[N], norms2[N], want[N], got[N];
  int64_t rows[N];
  for (int64_t i = 0; i < N; ++i) {
    x[i] = 28.3 * (double)i / (N - 1) - 1e-3 * (double)(i % 7); /* -g d^2 down to -800 */
    norms2[i] = x[i] * x[i];
    rows[i] = (i * 389) % N;
  }
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, N, 1, 1) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0, 0, 1) == SS_OK);
  const double zd[1] = {0.37};
  for (int listed = 0; listed < 2; ++listed) {
    for (int64_t m = 1; m <= N; m += (m < 20 ? 1 : 97)) {
      const int64_t *list = listed ? rows : NULL;
      for (int64_t k = 0; k < m; ++k) {
        const int64_t r = list ? list[k] : k;
        want[k] = ss_kernel_value(&kernel, x[r] * zd[0], norms2[r], zd[0] * zd[0]);
      }
      ss_kernel_row_from_scattered(&kernel, &data, norms2, list, m, zd, zd[0] * zd[0], got);
      CHECK(tu_same_bits(got, want, m));
    }
  }
  /* the range does reach underflow and values near 1 */
  CHECK(want[0] > 0.8);
  CHECK(ss_kernel_value(&kernel, x[N - 1] * zd[0], norms2[N - 1], zd[0] * zd[0]) == 0.0);
}

/* The SBP's level from the window scan of its row pass (sbp.c,
 * level_windowed) against the filling of all responses each iteration:
 * the same iterates, to rounding (the lower set is summed by blocks). */
void test_sbp_window_level_matches_full_filling(void)
{
  enum { N = 1500, D = 5 };
  double *X = malloc(sizeof(double) * N * D), *y = malloc(sizeof(double) * N);
  REQUIRE(X && y);
  tu_make_blobs(X, y, N, D, 0.2, 3);
  SsData data;
  SsKernel kernel;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  SsKernelSvm *svm[2];
  for (int k = 0; k < 2; ++k) {
    svm[k] = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 1e-3);
    REQUIRE(svm[k]);
    svm[k]->sbp_full_levels = k == 1;
    CHECK_EQ_INT(ss_kernel_svm_set_nu(svm[k], 0.05), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], 400), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm[k], 400), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm[k], 1e-300), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
  }
  const double *a = ss_kernel_svm_get_dual_variables(svm[0]);
  const double *b = ss_kernel_svm_get_dual_variables(svm[1]);
  double scale = 0, diff = 0;
  for (int64_t i = 0; i < N; ++i) {
    scale = fmax(scale, fabs(b[i]));
    diff = fmax(diff, fabs(a[i] - b[i]));
  }
  CHECK(scale > 0);
  CHECK(diff <= 1e-12 * scale);
  ss_kernel_svm_delete(svm[0]);
  ss_kernel_svm_delete(svm[1]);
  free(X), free(y);
}
