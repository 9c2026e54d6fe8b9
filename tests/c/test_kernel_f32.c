/* test_kernel_f32.c -- float32 kernel rows (SS_KERNEL_ROWS_FLOAT32): the
 * single-precision exp against libm, the float rows against the float64
 * rows within the documented bound (dense, CSR, 0/1 values; the same bits
 * for any thread count), the setter's refusals, and trained models. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/common/vexp_f32.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

/* u, the unit roundoff of float. */
#define U32 0x1p-24

void test_vexpf_matches_libm(void)
{
  /* -110 (below underflow) to 90 (above overflow), a step that is no
   * multiple of ln 2; the reference is exp in double of the same float. */
  double worst = 0;
  for (double t = -110.0; t <= 90.0; t += 7.77e-4) {
    const float x = (float)t;
    const double want = exp((double)x), got = ss_vexpf(x);
    if (want >= FLT_MIN && want <= FLT_MAX) {
      const double e = fabs(got - want) / want;
      if (e > worst) worst = e;
      CHECK(e <= 2.5 * U32);
    } else if (want < FLT_MIN) {
      CHECK(fabs(got - want) <= 0x1p-149);
    } else {
      CHECK(got == INFINITY);
    }
  }
  CHECK(worst > 0); /* it is not libm's expf to the bit: the bound is what is tested */
  CHECK(ss_vexpf(0.0f) == 1.0f);
  CHECK(ss_vexpf(-INFINITY) == 0.0f);
  CHECK(ss_vexpf(INFINITY) == INFINITY);
  CHECK(isnan(ss_vexpf(NAN)));
}

enum { F_N = 600, F_D = 70, F_SHORT = 30 };

/* Rows of float32 data: values multiples of 1/64 in [-1, 1), about a third
 * of them zero; `ones`: every non-zero replaced by 1 (0/1 features). */
typedef struct F32Set {
  float dense[F_N * F_D], values[F_N * F_D], ones[F_N * F_D];
  int32_t indices[F_N * F_D];
  int64_t indptr[F_N + 1];
} F32Set;

static void make_f32_set(F32Set *s)
{
  TuRng rng;
  tu_rng_init(&rng, 21);
  int64_t nnz = 0;
  s->indptr[0] = 0;
  for (int64_t i = 0; i < F_N; ++i) {
    for (int64_t j = 0; j < F_D; ++j) {
      const double v = tu_rng_uniform(&rng) < 0.35 ? 0.0 : floor(tu_rng_uniform(&rng) * 128) / 64 - 1;
      s->dense[i * F_D + j] = (float)v;
      if (v != 0) {
        s->indices[nnz] = (int32_t)j;
        s->values[nnz] = (float)v;
        s->ones[nnz++] = 1.0f;
      }
    }
    s->indptr[i + 1] = nnz;
  }
}

/* Float rows of four layouts (dense of F_D features: float dots; CSR; CSR
 * of 0/1 values; dense of the first F_SHORT features with stride F_D,
 * below SS_F32_MIN_DENSE: double dots), over all
 * rows and over a list, whole (ss_kernel_row_threads) and by blocks, on 1
 * and 2 threads: the same bits every way, each value within the bound of
 * kernel.rst ("Float32 kernel rows") of the float64 row, and the flag does
 * change the values (the float path ran). */
void test_kernel_rows_f32_within_bound(void)
{
  static F32Set s;
  make_f32_set(&s);
  static double norms2[F_N], want[F_N], got[F_N], again[F_N], zd[F_D], abs_dot[F_N];
  static int64_t list[F_N];
  for (int64_t k = 0; k < F_N; ++k) list[k] = (k * 389) % F_N;
  const double gamma = 0.3;
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, gamma, 0, 1) == SS_OK);
  for (int layout = 0; layout < 4; ++layout) {
    SsData data;
    const float *csr = layout == 2 ? s.ones : s.values;
    if (layout == 0) {
      REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT32, s.dense, F_N, F_D, F_D) == SS_OK);
    } else if (layout == 3) {
      REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT32, s.dense, F_N, F_SHORT, F_D) == SS_OK);
    } else {
      REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT32, csr, s.indptr, s.indices, F_N, F_D) == SS_OK);
    }
    const unsigned unit = ss_data_unit_values(&data) ? SS_ROWS_UNIT_VALUES : 0u;
    CHECK((unit != 0) == (layout == 2));
    for (int64_t i = 0; i < F_N; ++i) norms2[i] = ss_data_row_squared_norm(&data, i);
    const int64_t q = 17; /* the query: a row of the data, as in training */
    memset(zd, 0, sizeof zd);
    ss_data_scatter_row(&data, q, zd);
    int differ = 0;
    for (int listed = 0; listed < 2; ++listed) {
      const int64_t *rows = listed ? list : NULL;
      const SsThreads serial = {.count = 1};
      ss_kernel_row_threads(&kernel, &data, norms2, rows, F_N, zd, norms2[q], unit, want, serial);
      for (int64_t k = 0; k < F_N; ++k) {
        const int64_t r = rows ? rows[k] : k;
        double a = 0;
        for (int64_t j = 0; j < F_D; ++j) {
          const double x = layout == 0 ? s.dense[r * F_D + j] : 0;
          a += fabs(x * zd[j]);
        }
        abs_dot[k] = a;
      }
      ss_kernel_row_threads(&kernel, &data, norms2, rows, F_N, zd, norms2[q],
                            unit | SS_ROWS_FLOAT32, got, serial);
      for (int64_t k = 0; k < F_N; ++k) {
        /* exp: 2.5 u, the exponent's rounding: u max_t t e^-t < 0.4 u;
         * dense float dots: (d/8 + 4) u sum |x_j z_j|, times 2 gamma */
        const double bound = 3.0 * U32 + 2.0 * gamma * ((double)F_D / 8 + 4) * U32 * abs_dot[k];
        CHECK(fabs(got[k] - want[k]) <= bound);
        differ += got[k] != want[k];
      }
      for (int threads = 1; threads <= 2; ++threads) {
        const SsThreads t = {.count = threads, .min_length = 16};
        ss_kernel_row_threads(&kernel, &data, norms2, rows, F_N, zd, norms2[q],
                              unit | SS_ROWS_FLOAT32, again, t);
        CHECK(tu_same_bits(again, got, F_N));
      }
    }
    CHECK(differ > 0);
  }
}

/* A float32 training set of the blobs (values exact in float). */
static void blobs_f32(float *X, double *y, int64_t n, int64_t d)
{
  double *Xd = malloc((size_t)(n * d) * sizeof(double));
  REQUIRE(Xd != NULL);
  tu_make_blobs(Xd, y, n, d, 0.6, 5);
  for (int64_t k = 0; k < n * d; ++k) X[k] = (float)Xd[k];
  free(Xd);
}

void test_kernel_precision_setter_refuses(void)
{
  enum { N = 40, D = 3 };
  static float Xf[N * D];
  static double Xd[N * D], y[N];
  blobs_f32(Xf, y, N, D);
  for (int64_t k = 0; k < N * D; ++k) Xd[k] = Xf[k];
  SsData f32, f64;
  REQUIRE(ss_data_init_dense(&f32, SS_DTYPE_FLOAT32, Xf, N, D, D) == SS_OK);
  REQUIRE(ss_data_init_dense(&f64, SS_DTYPE_FLOAT64, Xd, N, D, D) == SS_OK);
  SsKernel rbf, poly;
  REQUIRE(ss_kernel_init(&rbf, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  REQUIRE(ss_kernel_init(&poly, SS_KERNEL_POLYNOMIAL, 0.5, 1, 2) == SS_OK);

  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(NULL, SS_KERNEL_ROWS_FLOAT32), SS_ERR_BAD_ARG);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &rbf, &f64, y, 0.01);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_get_kernel_precision(svm), SS_KERNEL_ROWS_FLOAT64);
  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, (SsKernelPrecision)7), SS_ERR_BAD_ARG);
  /* float64 data: refused, and the setting stays */
  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT32), SS_ERR_BAD_DATA);
  CHECK(strstr(ss_kernel_svm_get_last_error(svm), "need float32 data") != NULL);
  CHECK_EQ_INT(ss_kernel_svm_get_kernel_precision(svm), SS_KERNEL_ROWS_FLOAT64);
  /* float32 data, then float64 data given again: set_data refuses it */
  CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &f32, y), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT32), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_get_kernel_precision(svm), SS_KERNEL_ROWS_FLOAT32);
  CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &f64, y), SS_ERR_BAD_DATA);
  CHECK(strstr(ss_kernel_svm_get_last_error(svm), "kernel_precision float32 needs float32 data") != NULL);
  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT64), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &f64, y), SS_OK);
  ss_kernel_svm_delete(svm);

  /* kernels other than rbf, and the budgeted solvers */
  svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &poly, &f32, y, 0.01);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT32), SS_ERR_BAD_ARG);
  CHECK(strstr(ss_kernel_svm_get_last_error(svm), "rbf kernel only") != NULL);
  ss_kernel_svm_delete(svm);
  const SsKernelSolver budgeted[2] = {SS_KSOLVER_BSCA, SS_KSOLVER_BSGD};
  for (int b = 0; b < 2; ++b) {
    svm = ss_kernel_svm_new(budgeted[b], &rbf, &f32, y, 0.01);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_kernel_precision(svm, SS_KERNEL_ROWS_FLOAT32), SS_ERR_BAD_ARG);
    CHECK(strstr(ss_kernel_svm_get_last_error(svm), "not available for solver") != NULL);
    ss_kernel_svm_delete(svm);
  }
}

/* One trained object on the float32 blobs (NULL if refused). */
static SsKernelSvm *train_blobs(const SsData *data, const double *y, SsKernelSolver solver,
                                bool bias, SsKernelPrecision precision, int threads)
{
  SsKernel rbf;
  if (ss_kernel_init(&rbf, SS_KERNEL_RBF, 0.5, 0, 1) != SS_OK) return NULL;
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &rbf, data, y, 1.0 / (10.0 * (double)data->num_data));
  if (!svm || ss_kernel_svm_set_kernel_precision(svm, precision) != SS_OK ||
      ss_kernel_svm_set_num_threads(svm, threads) != SS_OK ||
      (bias && ss_kernel_svm_set_unregularized_bias(svm, 1) != SS_OK) ||
      ss_kernel_svm_set_epsilon(svm, solver == SS_KSOLVER_SBP ? 1e-3 : 1e-9) != SS_OK ||
      ss_kernel_svm_set_max_num_iterations(svm, 200 * data->num_data) != SS_OK || ss_kernel_svm_set_seed(svm, 3) != SS_OK ||
      ss_kernel_svm_train(svm) != SS_OK) {
    ss_kernel_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* Exact SDCA (with the bias: the cache's rows; without: the blocks) and
 * the SBP on float32 rows: the same run on 1 and 2 threads, a different one
 * from the float64 rows, and the exact solvers' dual objectives within
 * 1e-6 relative of the float64 rows' (kernel.rst gives the argument). */
void test_kernel_f32_rows_train_close(void)
{
  enum { N = 400, D = 5 };
  static float X[N * D];
  static double y[N];
  blobs_f32(X, y, N, D);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT32, X, N, D, D) == SS_OK);
  const SsKernelSolver solvers[3] = {SS_KSOLVER_SDCA, SS_KSOLVER_SDCA, SS_KSOLVER_SBP};
  for (int s = 0; s < 3; ++s) {
    const bool bias = s == 1;
    SsKernelSvm *f64 = train_blobs(&data, y, solvers[s], bias, SS_KERNEL_ROWS_FLOAT64, 1);
    SsKernelSvm *f32 = train_blobs(&data, y, solvers[s], bias, SS_KERNEL_ROWS_FLOAT32, 1);
    SsKernelSvm *f32t = train_blobs(&data, y, solvers[s], bias, SS_KERNEL_ROWS_FLOAT32, 2);
    REQUIRE(f64 && f32 && f32t);
    CHECK(tu_same_kernel_run(f32, f32t, N));
    CHECK(!tu_same_kernel_run(f32, f64, N));
    const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(f64);
    const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(f32);
    if (solvers[s] == SS_KSOLVER_SDCA) CHECK_REL(b->dual_objective, a->dual_objective, 1e-6);
    ss_kernel_svm_delete(f64);
    ss_kernel_svm_delete(f32);
    ss_kernel_svm_delete(f32t);
  }
}

/* Exact SDCA with float32 rows: a cache too small for n rows of doubles
 * stores floats (kernel_cache.c) and widens them; one that holds every row
 * keeps doubles. The values are the same, so are the runs, to the bit,
 * with and without shrinking. */
void test_kernel_f32_cache_stores_floats(void)
{
  enum { N = 300, D = 4 };
  static float X[N * D];
  static double y[N];
  blobs_f32(X, y, N, D);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT32, X, N, D, D) == SS_OK);
  SsKernel rbf;
  REQUIRE(ss_kernel_init(&rbf, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
  for (int shrinking = 0; shrinking < 2; ++shrinking) {
    SsKernelSvm *runs[2];
    const double megabytes[2] = {1e-9, 1e3}; /* two rows (floats); all rows (doubles) */
    for (int r = 0; r < 2; ++r) {
      runs[r] = ss_kernel_svm_new(SS_KSOLVER_SDCA, &rbf, &data, y, 1.0 / (10.0 * N));
      REQUIRE(runs[r] != NULL);
      CHECK(ss_kernel_svm_set_kernel_precision(runs[r], SS_KERNEL_ROWS_FLOAT32) == SS_OK);
      CHECK(ss_kernel_svm_set_unregularized_bias(runs[r], 1) == SS_OK);
      CHECK(ss_kernel_svm_set_shrinking(runs[r], shrinking) == SS_OK);
      CHECK(ss_kernel_svm_set_cache_size(runs[r], megabytes[r]) == SS_OK);
      CHECK(ss_kernel_svm_set_epsilon(runs[r], 1e-8) == SS_OK);
      CHECK(ss_kernel_svm_train(runs[r]) == SS_OK);
    }
    CHECK(tu_same_kernel_run(runs[0], runs[1], N));
    /* the small cache did recompute rows */
    CHECK(ss_kernel_svm_get_statistics(runs[0])->num_kernel_evaluations >
          ss_kernel_svm_get_statistics(runs[1])->num_kernel_evaluations);
    ss_kernel_svm_delete(runs[0]);
    ss_kernel_svm_delete(runs[1]);
  }
}
