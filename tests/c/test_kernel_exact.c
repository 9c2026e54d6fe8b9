/* test_kernel_exact.c -- exact kernel SDCA with a bias (kernel_sdca_pair.c)
 * and its row cache (kernel_cache.c): the cache returns the kernel values of
 * its rows over the active set, evicts the least recently used row, and
 * never serves a stale row after the active set grows; the solver reaches
 * the KKT conditions of LIBSVM's dual, checked against the full Gram matrix
 * computed here; the cache size never changes the iterates and shrinking
 * never changes the optimum; bad settings are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/kernel/kernel_cache.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

#define EN 120
#define ED 3

typedef struct ExactFixture {
  double X[EN * ED], y[EN], K[EN * EN];
  SsData data;
  SsKernel kernel;
} ExactFixture;

static void exact_fixture(ExactFixture *f)
{
  tu_make_blobs(f->X, f->y, EN, ED, 0.4, 71);
  ss_data_init_dense(&f->data, SS_DTYPE_FLOAT64, f->X, EN, ED, ED);
  ss_kernel_init(&f->kernel, SS_KERNEL_RBF, 0.7, 0, 1);
  for (int i = 0; i < EN; ++i)
    for (int j = 0; j < EN; ++j) {
      double d2 = 0;
      for (int k = 0; k < ED; ++k) d2 += pow(f->X[i * ED + k] - f->X[j * ED + k], 2);
      f->K[i * EN + j] = exp(-0.7 * d2);
    }
}

void test_kernel_cache_rows_lru_and_growth(void)
{
  ExactFixture f;
  exact_fixture(&f);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.01);
  REQUIRE(svm);
  SsKernelCache cache;
  REQUIRE(ss_kernel_cache_init(&cache, EN, 1e-9, false) == SS_OK); /* two rows */
  CHECK_EQ_INT(cache.capacity, 2);
  int64_t active[EN], all[EN], rest[EN];
  int64_t na = 0, nr = 0;
  for (int64_t k = 0; k < EN; ++k) {
    all[k] = k;
    if (k % 3 == 0) rest[nr++] = k;
    else active[na++] = k;
  }
  SsStatus status = SS_OK;
  const double *r5 = ss_kernel_cache_row(&cache, svm, 5, active, na, &status);
  REQUIRE(r5);
  for (int64_t k = 0; k < na; ++k) CHECK_CLOSE(r5[active[k]], f.K[5 * EN + active[k]], 1e-14);
  const double *r7 = ss_kernel_cache_row(&cache, svm, 7, active, na, &status);
  REQUIRE(r7);
  CHECK(ss_kernel_cache_row(&cache, svm, 5, active, na, &status) == r5); /* a hit */
  CHECK_EQ_INT(cache.hits, 1);
  /* Row 8 evicts the least recently used row, 7. */
  REQUIRE(ss_kernel_cache_row(&cache, svm, 8, active, na, &status));
  CHECK_EQ_INT(cache.slot_of[7], -1);
  CHECK(cache.slot_of[5] >= 0);
  /* Row 5 made complete; row 8 not: after the growth 8 is computed afresh. */
  REQUIRE(ss_kernel_cache_row_cover(&cache, svm, 5, active, na, rest, nr, &status));
  ss_kernel_cache_grow_active(&cache);
  const int64_t misses = cache.misses;
  const double *r8 = ss_kernel_cache_row(&cache, svm, 8, all, EN, &status);
  REQUIRE(r8);
  CHECK_EQ_INT(cache.misses, misses + 1);
  for (int64_t k = 0; k < EN; ++k) CHECK_CLOSE(r8[k], f.K[8 * EN + k], 1e-14);
  r5 = ss_kernel_cache_row(&cache, svm, 5, all, EN, &status);
  REQUIRE(r5);
  CHECK_EQ_INT(cache.misses, misses + 1);
  for (int64_t k = 0; k < EN; ++k) CHECK_CLOSE(r5[k], f.K[5 * EN + k], 1e-14);
  ss_kernel_cache_free(&cache);
  ss_kernel_svm_delete(svm);
}

static SsKernelSvm *exact_solver(ExactFixture *f, double C, double cache_mb, int shrinking,
                                 double epsilon)
{
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f->kernel, &f->data, f->y, 1.0 / (C * EN));
  if (!svm) return NULL;
  if (ss_kernel_svm_set_unregularized_bias(svm, 1) != SS_OK ||
      ss_kernel_svm_set_cache_size(svm, cache_mb) != SS_OK ||
      ss_kernel_svm_set_shrinking(svm, shrinking) != SS_OK ||
      ss_kernel_svm_set_epsilon(svm, epsilon) != SS_OK || ss_kernel_svm_train(svm) != SS_OK) {
    ss_kernel_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* m(a) - M(a) of LIBSVM's dual from the full Gram matrix. */
static double max_violation(const ExactFixture *f, const double *a, double C)
{
  double m = -INFINITY, M = INFINITY;
  for (int t = 0; t < EN; ++t) {
    double g = -1;
    for (int j = 0; j < EN; ++j) g += f->y[t] * f->y[j] * f->K[t * EN + j] * a[j];
    const double v = -f->y[t] * g, y = f->y[t];
    const bool up = y > 0 ? a[t] < C : a[t] > 0, low = y > 0 ? a[t] > 0 : a[t] < C;
    if (up && v > m) m = v;
    if (low && v < M) M = v;
  }
  return m - M;
}

static double libsvm_dual(const ExactFixture *f, const double *a)
{
  double s = 0;
  for (int i = 0; i < EN; ++i) {
    s += a[i];
    for (int j = 0; j < EN; ++j) s -= 0.5 * a[i] * a[j] * f->y[i] * f->y[j] * f->K[i * EN + j];
  }
  return s;
}

void test_kernel_exact_reaches_kkt(void)
{
  ExactFixture f;
  exact_fixture(&f);
  const double C = 4.0;
  SsKernelSvm *ref = exact_solver(&f, C, 200, 1, 1e-10);
  SsKernelSvm *tiny = exact_solver(&f, C, 1e-9, 1, 1e-10);
  SsKernelSvm *plain = exact_solver(&f, C, 200, 0, 1e-10);
  REQUIRE(ref && tiny && plain);
  const double *a = ss_kernel_svm_get_dual_variables(ref);
  double ya = 0;
  for (int i = 0; i < EN; ++i) {
    CHECK(a[i] >= 0 && a[i] <= C);
    ya += f.y[i] * a[i];
  }
  CHECK_CLOSE(ya, 0.0, 1e-10);
  CHECK(max_violation(&f, a, C) <= 1e-8);
  CHECK_EQ_INT(ss_kernel_svm_get_statistics(ref)->status, SS_SVM_STATUS_CONVERGED);
  /* the object's dual is lambda times LIBSVM's */
  CHECK_REL(ss_kernel_svm_get_statistics(ref)->dual_objective, libsvm_dual(&f, a) / (C * EN), 1e-9);
  /* the cache size: the same iterates, bit for bit */
  CHECK(tu_same_bits(a, ss_kernel_svm_get_dual_variables(tiny), EN));
  CHECK(ss_kernel_svm_get_bias(ref) == ss_kernel_svm_get_bias(tiny));
  CHECK(ss_kernel_svm_get_num_kernel_evaluations(tiny) >
        ss_kernel_svm_get_num_kernel_evaluations(ref));
  /* shrinking: the same optimum */
  CHECK_REL(libsvm_dual(&f, ss_kernel_svm_get_dual_variables(plain)), libsvm_dual(&f, a), 1e-12);
  ss_kernel_svm_delete(ref);
  ss_kernel_svm_delete(tiny);
  ss_kernel_svm_delete(plain);
}

void test_kernel_exact_settings(void)
{
  ExactFixture f;
  exact_fixture(&f);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.01);
  SsKernelSvm *peg = ss_kernel_svm_new(SS_KSOLVER_PEGASOS, &f.kernel, &f.data, f.y, 0.01);
  REQUIRE(svm && peg);
  CHECK(ss_kernel_svm_get_cache_size(svm) == SS_KERNEL_SVM_DEFAULT_CACHE_SIZE);
  CHECK_EQ_INT(ss_kernel_svm_get_shrinking(svm), 1);
  CHECK_EQ_INT(ss_kernel_svm_get_unregularized_bias(svm), 0);
  const double bad[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
  for (int b = 0; b < 5; ++b)
    CHECK_EQ_INT(ss_kernel_svm_set_cache_size(svm, bad[b]), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_cache_size(NULL, 10), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_shrinking(NULL, 1), SS_ERR_BAD_ARG);
  CHECK(ss_kernel_svm_get_cache_size(svm) == SS_KERNEL_SVM_DEFAULT_CACHE_SIZE);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(peg, 1), SS_ERR_BAD_STATE);
  /* a huge cache is allocated row by row, as needed */
  CHECK_EQ_INT(ss_kernel_svm_set_cache_size(svm, 1e12), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  /* resized between calls, and back to the bias-free solver */
  CHECK_EQ_INT(ss_kernel_svm_set_cache_size(svm, 1e-9), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  CHECK(ss_kernel_svm_get_bias(svm) == 0.0);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(peg);
}

/* One and two examples: the shrinking check then comes every step, and the
 * re-check after unshrinking must not shrink again first (a fuzzed input
 * hung here). */
void test_kernel_exact_tiny_problems(void)
{
  ExactFixture f;
  exact_fixture(&f);
  for (int64_t n = 1; n <= 3; ++n) {
    SsData data;
    ss_data_init_dense(&data, SS_DTYPE_FLOAT64, f.X, n, ED, ED);
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &data, f.y, 0.1);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 1000), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_CONVERGED);
    ss_kernel_svm_delete(svm);
  }
}
