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

#include "../../src/core/common/atomics.h"
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
  REQUIRE(ss_kernel_cache_set_active(&cache, active, na) == SS_OK);
  SsStatus status = SS_OK;
  const double *r5 = ss_kernel_cache_row(&cache, svm, 5, active, na, &status);
  REQUIRE(r5);
  for (int64_t k = 0; k < na; ++k) CHECK_CLOSE(r5[k], f.K[5 * EN + active[k]], 1e-14);
  const double *r7 = ss_kernel_cache_row(&cache, svm, 7, active, na, &status);
  REQUIRE(r7);
  CHECK(ss_kernel_cache_row(&cache, svm, 5, active, na, &status) == r5); /* a hit */
  CHECK_EQ_INT(cache.hits, 1);
  /* Row 8 evicts the least recently used row, 7. */
  REQUIRE(ss_kernel_cache_row(&cache, svm, 8, active, na, &status));
  CHECK_EQ_INT(cache.slot_of[7], -1);
  CHECK(cache.slot_of[5] >= 0);
  /* Row 5 made complete (by example); row 8 not: after the growth 8 is
   * computed afresh. */
  r5 = ss_kernel_cache_row_cover(&cache, svm, 5, active, na, rest, nr, &status);
  REQUIRE(r5);
  for (int64_t k = 0; k < EN; ++k) CHECK_CLOSE(r5[k], f.K[5 * EN + k], 1e-14);
  ss_kernel_cache_grow_active(&cache);
  REQUIRE(ss_kernel_cache_set_active(&cache, all, EN) == SS_OK);
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

/* Rows by position follow nested lists (kernel_cache.c, "Compact rows"): a
 * row computed over one list serves every later list of the generation,
 * moved to its positions without a kernel evaluation; a complete row is
 * gathered over the list; the older lists go when they pass 2 n entries,
 * and the rows laid out over them are computed again. Doubles and float
 * rows, the same values to the bit. */
void test_kernel_cache_rows_follow_nested_lists(void)
{
  ExactFixture f;
  exact_fixture(&f);
  for (int single = 0; single < 2; ++single) {
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.01);
    REQUIRE(svm);
    SsKernelCache cache; /* four rows; floats: eight */
    REQUIRE(ss_kernel_cache_init(&cache, EN, 4.0 * EN * sizeof(double) / 1048576.0, single) ==
            SS_OK);
    CHECK_EQ_INT(cache.single, single);
    int64_t list[EN], m = EN;
    for (int64_t k = 0; k < EN; ++k) list[k] = k;
    REQUIRE(ss_kernel_cache_set_active(&cache, list, m) == SS_OK);
    SsStatus status = SS_OK;
    /* Row 3 computed over all n (complete), row 10 over the first shrunk list. */
    REQUIRE(ss_kernel_cache_row(&cache, svm, 3, list, m, &status));
    double want3[EN], want10[EN];
    const double *row;
    for (int shrink = 0; shrink < 4; ++shrink) {
      /* the next list: every second of the current one leaves (the lists
       * kept: 120 + 60 + 30 + 15 + 8 <= 2 n entries) */
      int64_t kept = 0;
      for (int64_t k = 0; k < m; ++k) {
        if (k % 2 == 0) list[kept++] = list[k];
      }
      m = kept;
      REQUIRE(ss_kernel_cache_set_active(&cache, list, m) == SS_OK);
      if (shrink == 0) REQUIRE(ss_kernel_cache_row(&cache, svm, 10, list, m, &status));
      const int64_t misses = cache.misses;
      for (int64_t k = 0; k < m; ++k) {
        want3[k] = f.K[3 * EN + list[k]];
        want10[k] = f.K[10 * EN + list[k]];
      }
      row = ss_kernel_cache_row(&cache, svm, 10, list, m, &status);
      REQUIRE(row);
      bool same = true;
      for (int64_t k = 0; k < m; ++k) same = same && fabs(row[k] - want10[k]) <= 1e-6;
      CHECK(same);
      row = ss_kernel_cache_row(&cache, svm, 3, list, m, &status);
      REQUIRE(row);
      same = true;
      for (int64_t k = 0; k < m; ++k) same = same && fabs(row[k] - want3[k]) <= 1e-6;
      CHECK(same);
      CHECK_EQ_INT(cache.misses, misses); /* no row computed again */
    }
    CHECK_EQ_INT(cache.level - cache.first_level + 1, 5); /* all five lists kept */
    /* The same values as a row computed afresh over the last list, to the bit. */
    SsKernelCache fresh;
    REQUIRE(ss_kernel_cache_init(&fresh, EN, 1e-9, single) == SS_OK);
    REQUIRE(ss_kernel_cache_set_active(&fresh, list, m) == SS_OK);
    const double *a = ss_kernel_cache_row(&fresh, svm, 10, list, m, &status);
    REQUIRE(a);
    double copy[EN];
    memcpy(copy, a, (size_t)m * sizeof(double));
    row = ss_kernel_cache_row(&cache, svm, 10, list, m, &status);
    CHECK(memcmp(row, copy, (size_t)m * sizeof(double)) == 0);
    /* Spread to all n: the cover computes only the examples off the list. */
    int64_t others[EN], no = 0;
    for (int64_t k = 0, q = 0; k < EN; ++k) {
      if (q < m && list[q] == k) ++q;
      else others[no++] = k;
    }
    const int64_t misses = cache.misses, evaluations = svm->num_kernel_evaluations;
    row = ss_kernel_cache_row_cover(&cache, svm, 10, list, m, others, no, &status);
    REQUIRE(row);
    CHECK_EQ_INT(cache.misses, misses + 1);
    CHECK_EQ_INT(svm->num_kernel_evaluations, evaluations + no);
    bool same = true;
    for (int64_t k = 0; k < EN; ++k) same = same && fabs(row[k] - f.K[10 * EN + k]) <= 1e-6;
    CHECK(same);
    /* ... and row 10 is then served over the list from its complete row. */
    row = ss_kernel_cache_row(&cache, svm, 10, list, m, &status);
    CHECK(memcmp(row, copy, (size_t)m * sizeof(double)) == 0);
    ss_kernel_cache_free(&fresh);
    /* Lists passing 2 n entries: the older ones go, and row 4, laid out
     * over one of them, is computed again. */
    REQUIRE(ss_kernel_cache_row(&cache, svm, 4, list, m, &status));
    const int64_t first = cache.first_level;
    for (int64_t round = 0; cache.first_level == first; ++round) {
      REQUIRE(ss_kernel_cache_set_active(&cache, list, m - 1 - round % 2) == SS_OK);
      m = m - 1 - round % 2;
    }
    CHECK_EQ_INT(cache.lists_used, m); /* only the current list kept */
    const int64_t before = cache.misses;
    row = ss_kernel_cache_row(&cache, svm, 4, list, m, &status);
    REQUIRE(row);
    CHECK_EQ_INT(cache.misses, before + 1);
    same = true;
    for (int64_t k = 0; k < m; ++k) same = same && fabs(row[k] - f.K[4 * EN + list[k]]) <= 1e-6;
    CHECK(same);
    ss_kernel_cache_free(&cache);
    ss_kernel_svm_delete(svm);
  }
}

/* What the passes read over a shrunk active list is packed in its order
 * (kernel_sdca_pair.c, "Packing"): after every stop of a run cut into
 * short train calls, visit k's v, side and K_tt are those of example
 * active[k], checked against the Gram matrix: v_t = -y_t g_t = y_t -
 * sum_j y_j K_tj a_j, the side from a_t and its box. Checked after every
 * step, on overlapping classes at a large C, so that examples reach and
 * leave their bounds while the list is shrunk (hundreds of times); an rbf
 * kernel (K_tt = 1) and a polynomial one (K_tt differs between examples). */
#define PN 300
void test_kernel_exact_packed_passes_follow_the_examples(void)
{
  static double X[PN * ED], y[PN], K[PN * PN];
  tu_make_blobs(X, y, PN, ED, 0.3, 83);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, PN, ED, ED);
  const double C = 50;
  int shrunk = 0, moved = 0;
  for (int poly = 0; poly < 2; ++poly) {
    SsKernel kernel;
    REQUIRE(ss_kernel_init(&kernel, poly ? SS_KERNEL_POLYNOMIAL : SS_KERNEL_RBF, poly ? 0.5 : 1.0,
                           poly ? 1.0 : 0.0, 3) == SS_OK);
    for (int i = 0; i < PN; ++i)
      for (int j = 0; j < PN; ++j) {
        double dot = 0, d2 = 0;
        for (int k = 0; k < ED; ++k) {
          dot += X[i * ED + k] * X[j * ED + k];
          d2 += pow(X[i * ED + k] - X[j * ED + k], 2);
        }
        K[i * PN + j] = poly ? pow(0.5 * dot + 1.0, 3) : exp(-d2);
      }
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1.0 / (C * PN));
    REQUIRE(svm);
    REQUIRE(ss_kernel_svm_set_unregularized_bias(svm, 1) == SS_OK);
    REQUIRE(ss_kernel_svm_set_epsilon(svm, 1e-9) == SS_OK);
    REQUIRE(ss_kernel_svm_set_max_num_iterations(svm, 1) == SS_OK);
    unsigned char before[PN] = {0};
    for (int call = 0; call < 1500; ++call) {
      REQUIRE(ss_kernel_svm_train(svm) == SS_OK);
      const int64_t *active;
      int64_t na;
      const double *v, *K_diag;
      const unsigned char *side;
      REQUIRE(ss_kernel_sdca_pair_view(svm, &active, &na, &v, &side, &K_diag));
      const double *a = ss_kernel_svm_get_dual_variables(svm);
      bool same = true;
      for (int64_t k = 0; k < na; ++k) {
        const int64_t t = active ? active[k] : k;
        double sum = 0;
        for (int j = 0; j < PN; ++j) sum += y[j] * K[t * PN + j] * a[j];
        const double v_t = y[t] - sum;
        const unsigned char side_t = (unsigned char)(((y[t] > 0 ? a[t] < C : a[t] > 0) ? 1 : 0) |
                                                     ((y[t] > 0 ? a[t] > 0 : a[t] < C) ? 2 : 0));
        same = same && fabs(v[k] - v_t) <= 1e-9 * (1 + fabs(v_t)) && side[k] == side_t &&
               fabs(K_diag[k] - K[t * PN + t]) <= 1e-12 * K[t * PN + t];
        moved += na < PN && before[t] != 0 && before[t] != side_t; /* a side changed while shrunk */
        before[t] = side_t;
      }
      CHECK(same);
      shrunk += na < PN;
    }
    ss_kernel_svm_delete(svm);
  }
  CHECK(shrunk >= 1000); /* most checks over a shrunk list */
  CHECK(moved >= 100);
}
#undef PN

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

/* ------------------------------------------------------------------------ */
/*          Kernel rows shared between objects (kernel_cache.c)              */
/* ------------------------------------------------------------------------ */

#include <pthread.h>

#define SHARE_PROBLEMS 3

/* Three labelings of the fixture's X (one-vs-rest-like problems). */
static void share_labels(const ExactFixture *f, double y[SHARE_PROBLEMS][EN])
{
  for (int k = 0; k < EN; ++k) {
    y[0][k] = f->y[k];
    y[1][k] = f->X[k * ED] > 0 ? 1.0 : -1.0;
    y[2][k] = f->X[k * ED + 1] + f->X[k * ED + 2] > 0.3 ? 1.0 : -1.0;
  }
}

static SsKernelSvm *share_solver(const ExactFixture *f, const double *y, int threads)
{
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f->kernel, &f->data, y, 1.0 / (10.0 * EN));
  if (svm) {
    ss_kernel_svm_set_unregularized_bias(svm, 1);
    ss_kernel_svm_set_epsilon(svm, 1e-6);
    ss_kernel_svm_set_num_threads(svm, threads);
    svm->threads.min_length = 16; /* split the 120-value rows too */
  }
  return svm;
}

static void *train_in_thread(void *svm)
{
  return ss_kernel_svm_train(svm) == SS_OK ? svm : NULL;
}

/* Shared rows give every problem the iterates it has alone, bit for bit,
 * for 1 and 2 threads per object, trained one after the other or at the
 * same time; each row is computed once when the objects train in turn. */
void test_kernel_exact_shared_rows_bitwise(void)
{
  ExactFixture f;
  exact_fixture(&f);
  double y[SHARE_PROBLEMS][EN];
  share_labels(&f, y);
  SsKernelSvm *alone[SHARE_PROBLEMS];
  int64_t alone_evaluations = 0;
  for (int p = 0; p < SHARE_PROBLEMS; ++p) {
    alone[p] = share_solver(&f, y[p], 1);
    REQUIRE(alone[p] && ss_kernel_svm_train(alone[p]) == SS_OK);
    alone_evaluations += ss_kernel_svm_get_statistics(alone[p])->num_kernel_evaluations;
  }
  for (int mode = 0; mode < 4; ++mode) {
    const int threads = 1 + mode % 2;
    const bool concurrent = mode >= 2;
    SsKernelSvm *svm[SHARE_PROBLEMS];
    for (int p = 0; p < SHARE_PROBLEMS; ++p) {
      svm[p] = share_solver(&f, y[p], threads);
      REQUIRE(svm[p]);
      if (p > 0) CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(svm[p], svm[0]), SS_OK);
    }
    if (concurrent) {
      pthread_t other[SHARE_PROBLEMS];
      void *result[SHARE_PROBLEMS];
      for (int p = 0; p < SHARE_PROBLEMS; ++p)
        REQUIRE(pthread_create(&other[p], NULL, train_in_thread, svm[p]) == 0);
      for (int p = 0; p < SHARE_PROBLEMS; ++p) {
        pthread_join(other[p], &result[p]);
        CHECK(result[p] == svm[p]);
      }
    } else {
      for (int p = 0; p < SHARE_PROBLEMS; ++p) CHECK_EQ_INT(ss_kernel_svm_train(svm[p]), SS_OK);
    }
    int64_t evaluations = 0;
    for (int p = 0; p < SHARE_PROBLEMS; ++p) {
      CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm[p]),
                   ss_kernel_svm_get_dual_variables(alone[p]), EN * sizeof(double)) == 0);
      CHECK(ss_kernel_svm_get_bias(svm[p]) == ss_kernel_svm_get_bias(alone[p]));
      evaluations += ss_kernel_svm_get_statistics(svm[p])->num_kernel_evaluations;
    }
    if (SS_HAVE_ATOMICS) { /* else no store (atomics.h): each object computes its own rows */
      CHECK(evaluations < alone_evaluations);
      if (!concurrent) CHECK(evaluations <= (int64_t)EN * EN); /* each row at most once */
    } else {
      CHECK(evaluations == alone_evaluations);
    }
    for (int p = 0; p < SHARE_PROBLEMS; ++p) ss_kernel_svm_delete(svm[p]);
  }
  for (int p = 0; p < SHARE_PROBLEMS; ++p) ss_kernel_svm_delete(alone[p]);
}

/* Refusals, a cache too small for the store (unused, same iterates), the
 * store outliving the object that made it, set_data and unsharing. */
void test_kernel_exact_shared_rows_refusals_and_lifetime(void)
{
  ExactFixture f;
  exact_fixture(&f);
  double y[SHARE_PROBLEMS][EN];
  share_labels(&f, y);
  SsKernelSvm *source = share_solver(&f, y[0], 1), *svm = share_solver(&f, y[1], 1);
  SsKernelSvm *ref = share_solver(&f, y[1], 1);
  REQUIRE(source && svm && ref);
  REQUIRE(ss_kernel_svm_train(ref) == SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(NULL, source), SS_ERR_BAD_ARG);
  /* other arrays with the same values, another gamma, another precision: refused */
  double copy[EN * ED];
  memcpy(copy, f.X, sizeof copy);
  ExactFixture g = f;
  ss_data_init_dense(&g.data, SS_DTYPE_FLOAT64, copy, EN, ED, ED);
  SsKernelSvm *other_data = share_solver(&g, y[1], 1);
  ss_kernel_init(&g.kernel, SS_KERNEL_RBF, 0.5, 0, 1);
  g.data = f.data;
  SsKernelSvm *other_gamma = share_solver(&g, y[1], 1);
  SsKernelSvm *empty = ss_kernel_svm_new_without_data(SS_KSOLVER_SDCA, &f.kernel, ED, 0.01);
  REQUIRE(other_data && other_gamma && empty);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(other_data, source), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(other_gamma, source), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(empty, source), SS_ERR_BAD_STATE);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(source, empty), SS_ERR_BAD_STATE);
  CHECK(ss_kernel_svm_get_last_error(other_gamma)[0] != '\0');
  /* sharing with oneself, twice with the same source, and unsharing: fine */
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(source, source), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(svm, source), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(svm, source), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(other_data, NULL), SS_OK);
  /* the source trains and goes; the store lives on with svm */
  REQUIRE(ss_kernel_svm_train(source) == SS_OK);
  ss_kernel_svm_delete(source);
  REQUIRE(ss_kernel_svm_train(svm) == SS_OK);
  if (SS_HAVE_ATOMICS) /* else no store (atomics.h): svm computes its own rows */
    CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->num_kernel_evaluations, 0); /* all shared */
  CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm), ss_kernel_svm_get_dual_variables(ref),
               EN * sizeof(double)) == 0);
  /* a cache too small for all rows does not use the store: same iterates */
  SsKernelSvm *small = share_solver(&f, y[1], 1);
  REQUIRE(small);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(small, svm), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_cache_size(small, 1e-9), SS_OK);
  REQUIRE(ss_kernel_svm_train(small) == SS_OK);
  CHECK(ss_kernel_svm_get_statistics(small)->num_kernel_evaluations > 0);
  CHECK(memcmp(ss_kernel_svm_get_dual_variables(small), ss_kernel_svm_get_dual_variables(ref),
               EN * sizeof(double)) == 0);
  /* new data leave the store: trained again, the rows are computed afresh */
  CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &f.data, y[1]), SS_OK);
  REQUIRE(ss_kernel_svm_train(svm) == SS_OK);
  CHECK(ss_kernel_svm_get_statistics(svm)->num_kernel_evaluations > 0);
  CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm), ss_kernel_svm_get_dual_variables(ref),
               EN * sizeof(double)) == 0);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(small);
  ss_kernel_svm_delete(ref);
  ss_kernel_svm_delete(other_data);
  ss_kernel_svm_delete(other_gamma);
  ss_kernel_svm_delete(empty);
}

/* CSR: objects with their own copies of one structure (as the Python layer
 * makes them) share rows, with the iterates of each alone; another
 * structure over the same values is refused. */
void test_kernel_exact_shared_rows_csr(void)
{
  ExactFixture f;
  exact_fixture(&f);
  double y[SHARE_PROBLEMS][EN];
  share_labels(&f, y);
  int64_t indptr[3][EN + 1];
  int32_t indices[3][EN * ED];
  for (int64_t k = 0; k <= EN; ++k) {
    indptr[0][k] = indptr[1][k] = k * ED;
    /* the third: rows 0 and EN - 1 without their last column */
    indptr[2][k] = k == 0 ? 0 : (k < EN ? k * ED - 1 : EN * ED - 2);
  }
  for (int64_t k = 0; k < EN * ED; ++k) indices[0][k] = indices[1][k] = (int32_t)(k % ED);
  for (int64_t r = 0; r < EN; ++r)
    for (int64_t q = indptr[2][r]; q < indptr[2][r + 1]; ++q) indices[2][q] = (int32_t)(q - indptr[2][r]);
  ExactFixture g[3];
  SsKernelSvm *svm[3], *alone;
  for (int c = 0; c < 3; ++c) {
    g[c] = f;
    REQUIRE(ss_data_init_csr(&g[c].data, SS_DTYPE_FLOAT64, f.X, indptr[c], indices[c], EN, ED) ==
            SS_OK);
    svm[c] = share_solver(&g[c], y[c % 2], 1);
    REQUIRE(svm[c]);
  }
  alone = share_solver(&g[0], y[1], 1);
  REQUIRE(alone && ss_kernel_svm_train(alone) == SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(svm[1], svm[0]), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_share_kernel_rows(svm[2], svm[0]), SS_ERR_BAD_ARG);
  REQUIRE(ss_kernel_svm_train(svm[0]) == SS_OK);
  ss_kernel_svm_delete(svm[0]); /* the store keeps its own copy of the structure */
  REQUIRE(ss_kernel_svm_train(svm[1]) == SS_OK);
  CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm[1]), ss_kernel_svm_get_dual_variables(alone),
               EN * sizeof(double)) == 0);
  ss_kernel_svm_delete(svm[1]);
  ss_kernel_svm_delete(svm[2]);
  ss_kernel_svm_delete(alone);
}

/* The vector passes over all n and over the active list (kernel_sdca_pair.c) make the scalar scans'
 * choices: the same duals and bias bit for bit, for n with every remainder
 * mod 4 (the lanes' tail), three labelings, two C, shrinking on/off, with
 * the bias and in the bias-free mode (choose_t and choose_partner). */
void test_kernel_exact_vector_passes_equal_scalar(void)
{
  ExactFixture f;
  exact_fixture(&f);
  double y[SHARE_PROBLEMS][EN];
  share_labels(&f, y);
  const double Cs[2] = {0.5, 50.0};
  int compared = 0;
  for (int64_t n = EN - 7; n <= EN; ++n) {
    SsData data;
    ss_data_init_dense(&data, SS_DTYPE_FLOAT64, f.X, n, ED, ED);
    for (int p = 0; p < SHARE_PROBLEMS; ++p)
      for (int c = 0; c < 2; ++c)
        for (int shrinking = 0; shrinking < 2; ++shrinking)
          for (int bias_free = 0; bias_free < 2; ++bias_free) {
            SsKernelSvm *svm[2];
            for (int scalar = 0; scalar < 2; ++scalar) {
              svm[scalar] = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &data, y[p], 1.0 / (Cs[c] * n));
              REQUIRE(svm[scalar]);
              svm[scalar]->scalar_pair_passes = scalar;
              if (bias_free) REQUIRE(ss_kernel_sdca_bias_free_pairs(svm[scalar]) == SS_OK);
              else ss_kernel_svm_set_unregularized_bias(svm[scalar], 1);
              ss_kernel_svm_set_shrinking(svm[scalar], shrinking);
              ss_kernel_svm_set_epsilon(svm[scalar], 1e-8);
              REQUIRE(ss_kernel_svm_train(svm[scalar]) == SS_OK);
            }
            CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm[0]),
                         ss_kernel_svm_get_dual_variables(svm[1]), (size_t)n * sizeof(double)) == 0);
            CHECK(ss_kernel_svm_get_bias(svm[0]) == ss_kernel_svm_get_bias(svm[1]));
            CHECK(ss_kernel_svm_get_iteration_number(svm[0]) == ss_kernel_svm_get_iteration_number(svm[1]));
            ss_kernel_svm_delete(svm[0]);
            ss_kernel_svm_delete(svm[1]);
            ++compared;
          }
  }
  CHECK_EQ_INT(compared, 8 * SHARE_PROBLEMS * 4 * 2);
}

/* The passes in chunks (kernel_sdca_pair.c, pair_pass): each chunk's best
 * joined in order, ties to the earlier chunk, on one thread or two, must
 * make the one scan's choices -- the same duals, bias and steps bit for bit
 * with chunks of 4 to 64 visits (every chunk boundary: ties across chunks,
 * chunks with no candidate) as in one chunk, the vector and scalar passes,
 * shrinking on and off. */
void test_kernel_exact_chunked_passes_equal_one_scan(void)
{
  ExactFixture f;
  exact_fixture(&f);
  double y[SHARE_PROBLEMS][EN];
  share_labels(&f, y);
  SsData data;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, f.X, EN, ED, ED);
  const int64_t chunks[] = {4, 8, 12, 64};
  int compared = 0;
  for (int p = 0; p < SHARE_PROBLEMS; ++p)
    for (int scalar = 0; scalar < 2; ++scalar)
      for (int shrinking = 0; shrinking < 2; ++shrinking) {
        SsKernelSvm *one = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &data, y[p], 1.0 / (5.0 * EN));
        REQUIRE(one);
        one->scalar_pair_passes = scalar;
        ss_kernel_svm_set_unregularized_bias(one, 1);
        ss_kernel_svm_set_shrinking(one, shrinking);
        ss_kernel_svm_set_epsilon(one, 1e-8);
        REQUIRE(ss_kernel_svm_train(one) == SS_OK);
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; ++c)
          for (int threads = 1; threads <= 2; ++threads) {
            SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &data, y[p], 1.0 / (5.0 * EN));
            REQUIRE(svm);
            svm->scalar_pair_passes = scalar;
            svm->pair_chunk = chunks[c];
            ss_kernel_svm_set_unregularized_bias(svm, 1);
            ss_kernel_svm_set_shrinking(svm, shrinking);
            ss_kernel_svm_set_epsilon(svm, 1e-8);
            if (threads == 2) {
              REQUIRE(ss_kernel_svm_set_num_threads(svm, 2) == SS_OK);
              svm->threads.min_length = 4;
              if (svm->threads.pool) ss_thread_pool_set_adaptive(svm->threads.pool, false);
            }
            REQUIRE(ss_kernel_svm_train(svm) == SS_OK);
            CHECK(memcmp(ss_kernel_svm_get_dual_variables(one), ss_kernel_svm_get_dual_variables(svm),
                         EN * sizeof(double)) == 0);
            CHECK(ss_kernel_svm_get_bias(one) == ss_kernel_svm_get_bias(svm));
            CHECK(ss_kernel_svm_get_iteration_number(one) == ss_kernel_svm_get_iteration_number(svm));
            ss_kernel_svm_delete(svm);
            ++compared;
          }
        ss_kernel_svm_delete(one);
      }
  CHECK_EQ_INT(compared, SHARE_PROBLEMS * 2 * 2 * 4 * 2);
}

/* The bias-free mode (kernel_sdca_pair.c, bias_free_step) on a wide kernel
 * (gamma 0.06 here: values 0.87 on average over the blobs, the stiff direction
 * of that file's opening comment), at C = 30: with its partners it reaches
 * the KKT conditions of the dual without y'a = 0 (max(m, -M) <= tol
 * against the full Gram matrix computed here) and the optimum the single
 * steps reach, in a fraction of their steps; and its passes make the same
 * choices bit for bit in chunks, on two threads and in scalar scans. */
void test_kernel_exact_bias_free_two_coordinates(void)
{
  ExactFixture f;
  exact_fixture(&f);
  const double gamma = 0.06, C = 30.0;
  SsKernel wide;
  ss_kernel_init(&wide, SS_KERNEL_RBF, gamma, 0, 1);
  double mean = 0;
  for (int i = 0; i < EN; ++i)
    for (int j = 0; j < EN; ++j) {
      double d2 = 0;
      for (int k = 0; k < ED; ++k) d2 += pow(f.X[i * ED + k] - f.X[j * ED + k], 2);
      f.K[i * EN + j] = exp(-gamma * d2);
      mean += f.K[i * EN + j] / (EN * EN);
    }
  CHECK(mean > 0.6 && mean < 0.95);
  SsKernelSvm *svm[2];
  for (int single = 0; single < 2; ++single) {
    svm[single] = ss_kernel_svm_new(SS_KSOLVER_SDCA, &wide, &f.data, f.y, 1.0 / (C * EN));
    REQUIRE(svm[single]);
    REQUIRE(ss_kernel_sdca_bias_free_pairs(svm[single]) == SS_OK);
    svm[single]->single_coordinate_steps = single;
    ss_kernel_svm_set_epsilon(svm[single], 1e-6);
    ss_kernel_svm_set_max_num_iterations(svm[single], 100000 * EN);
    REQUIRE(ss_kernel_svm_train(svm[single]) == SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm[single])->status, SS_SVM_STATUS_CONVERGED);
    CHECK(ss_kernel_svm_get_bias(svm[single]) == 0);
  }
  const double *a = ss_kernel_svm_get_dual_variables(svm[0]);
  double worst = 0;
  for (int t = 0; t < EN; ++t) {
    double g = -1;
    for (int j = 0; j < EN; ++j) g += f.y[t] * f.y[j] * f.K[t * EN + j] * a[j];
    const double v = -f.y[t] * g;
    CHECK(a[t] >= 0 && a[t] <= C);
    if (f.y[t] > 0 ? a[t] < C : a[t] > 0) worst = fmax(worst, v);  /* may grow beta_t */
    if (f.y[t] > 0 ? a[t] > 0 : a[t] < C) worst = fmax(worst, -v); /* may shrink it */
  }
  CHECK(worst <= 1e-3);
  const double P2 = ss_kernel_svm_get_statistics(svm[0])->primal_objective;
  const double P1 = ss_kernel_svm_get_statistics(svm[1])->primal_objective;
  CHECK(fabs(P2 - P1) <= 1e-5 * P1);
  const int64_t steps2 = ss_kernel_svm_get_iteration_number(svm[0]);
  const int64_t steps1 = ss_kernel_svm_get_iteration_number(svm[1]);
  CHECK(10 * steps2 <= steps1); /* 360 against 25,320 when written */
  const int64_t chunks[] = {4, 12};
  for (size_t c = 0; c < 2; ++c)
    for (int threads = 1; threads <= 2; ++threads)
      for (int scalar = 0; scalar < 2; ++scalar) {
        SsKernelSvm *other = ss_kernel_svm_new(SS_KSOLVER_SDCA, &wide, &f.data, f.y, 1.0 / (C * EN));
        REQUIRE(other);
        REQUIRE(ss_kernel_sdca_bias_free_pairs(other) == SS_OK);
        other->pair_chunk = chunks[c];
        other->scalar_pair_passes = scalar;
        ss_kernel_svm_set_epsilon(other, 1e-6);
        ss_kernel_svm_set_max_num_iterations(other, 100000 * EN);
        if (threads == 2) {
          REQUIRE(ss_kernel_svm_set_num_threads(other, 2) == SS_OK);
          other->threads.min_length = 4;
          if (other->threads.pool) ss_thread_pool_set_adaptive(other->threads.pool, false);
        }
        REQUIRE(ss_kernel_svm_train(other) == SS_OK);
        CHECK(memcmp(a, ss_kernel_svm_get_dual_variables(other), EN * sizeof(double)) == 0);
        CHECK(steps2 == ss_kernel_svm_get_iteration_number(other));
        ss_kernel_svm_delete(other);
      }
  ss_kernel_svm_delete(svm[0]);
  ss_kernel_svm_delete(svm[1]);
}

/* The bias-free mode on a kernel that is not positive semi-definite (the
 * sigmoid with a negative coef0: K_tt < 0 on most rows, where a pair's
 * 2x2 block can have two negative eigenvalues): the run ends without an
 * error, with a finite dual objective >= 0, i.e. F at or below F(0) = 0. */
void test_kernel_exact_bias_free_indefinite_kernel(void)
{
  ExactFixture f;
  exact_fixture(&f);
  SsKernel sigmoid;
  ss_kernel_init(&sigmoid, SS_KERNEL_SIGMOID, 0.3, -2.0, 1);
  for (int c = 0; c < 2; ++c) {
    const double C = c ? 100.0 : 1.0;
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &sigmoid, &f.data, f.y, 1.0 / (C * EN));
    REQUIRE(svm);
    REQUIRE(ss_kernel_sdca_bias_free_pairs(svm) == SS_OK);
    ss_kernel_svm_set_max_num_iterations(svm, 50 * EN);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    int negative = 0;
    for (int t = 0; t < EN; ++t) negative += svm->diagonal[t] < 0;
    CHECK(negative > EN / 2);
    const double D = ss_kernel_svm_get_statistics(svm)->dual_objective;
    CHECK(isfinite(D) && D >= 0);
    ss_kernel_svm_delete(svm);
  }
}
