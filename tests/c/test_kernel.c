/* test_kernel.c -- kernels, kernel rows, the SBP water filling against a
 * sorting reference, and the kernel SVM object (lifecycle, setters, warm
 * start, interruption, solvers' optimality). */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

/* ------------------------------------------------------------------------ */
/*                                  Kernels                                  */
/* ------------------------------------------------------------------------ */

void test_kernel_init_rejects(void)
{
  SsKernel k;
  CHECK_EQ_INT(ss_kernel_init(NULL, SS_KERNEL_RBF, 1, 0, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, (SsKernelType)9, 1, 0, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, SS_KERNEL_RBF, 0, 0, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, SS_KERNEL_RBF, NAN, 0, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, SS_KERNEL_SIGMOID, -1, 0, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, SS_KERNEL_POLYNOMIAL, 1, 0, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init(&k, SS_KERNEL_POLYNOMIAL, 1, INFINITY, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init_gaussian(&k, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_init_gaussian(&k, 2.0), SS_OK);
  CHECK_CLOSE(k.gamma, 0.25, 0);
  CHECK_EQ_INT(ss_kernel_check(&k), SS_OK);
  k.gamma = -1;
  CHECK_EQ_INT(ss_kernel_check(&k), SS_ERR_BAD_ARG);
}

/* Dense f64, dense f32 and CSR f32/f64 rows give the same kernel rows, equal
 * to the formulas evaluated directly. */
void test_kernel_rows_layouts_agree(void)
{
  enum { n = 9, d = 6 };
  double X[n * d], y[n];
  float Xf[n * d];
  tu_make_blobs(X, y, n, d, 0.5, 3);
  for (int k = 0; k < n * d; ++k) {
    if ((k * 7) % 3 == 0) X[k] = 0; /* some zeros for the sparse layout */
    Xf[k] = (float)X[k];
  }
  int64_t indptr[n + 1];
  int32_t indices[n * d];
  double values[n * d];
  float valuesf[n * d];
  int64_t nnz = 0;
  indptr[0] = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) {
      if (X[i * d + j] != 0) {
        indices[nnz] = j;
        values[nnz] = X[i * d + j];
        valuesf[nnz] = (float)X[i * d + j];
        ++nnz;
      }
    }
    indptr[i + 1] = nnz;
  }
  SsData dense, densef, csr, csrf;
  REQUIRE(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, X, n, d, d) == SS_OK);
  REQUIRE(ss_data_init_dense(&densef, SS_DTYPE_FLOAT32, Xf, n, d, d) == SS_OK);
  REQUIRE(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, values, indptr, indices, n, d) == SS_OK);
  REQUIRE(ss_data_init_csr(&csrf, SS_DTYPE_FLOAT32, valuesf, indptr, indices, n, d) == SS_OK);
  SsKernel kernels[4];
  ss_kernel_init(&kernels[0], SS_KERNEL_LINEAR, 1, 0, 1);
  ss_kernel_init(&kernels[1], SS_KERNEL_RBF, 0.7, 0, 1);
  ss_kernel_init(&kernels[2], SS_KERNEL_POLYNOMIAL, 0.5, 1.5, 3);
  ss_kernel_init(&kernels[3], SS_KERNEL_SIGMOID, 0.3, -0.2, 1);
  const SsData *views[4] = {&dense, &densef, &csr, &csrf};
  for (int kk = 0; kk < 4; ++kk) {
    for (int q = 0; q < n; ++q) {
      double expected[n];
      for (int j = 0; j < n; ++j) {
        double dot = 0, dist = 0;
        for (int c = 0; c < d; ++c) {
          dot += X[q * d + c] * X[j * d + c];
          dist += (X[q * d + c] - X[j * d + c]) * (X[q * d + c] - X[j * d + c]);
        }
        switch (kk) {
        case 0: expected[j] = dot; break;
        case 1: expected[j] = exp(-0.7 * dist); break;
        case 2: expected[j] = pow(0.5 * dot + 1.5, 3); break;
        default: expected[j] = tanh(0.3 * dot - 0.2); break;
        }
      }
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
          double out[n];
          int64_t count = 0;
          REQUIRE(ss_kernel_row(&kernels[kk], views[a], q, views[b], NULL, out, &count) == SS_OK);
          CHECK_EQ_INT(count, n);
          for (int j = 0; j < n; ++j) CHECK_CLOSE(out[j], expected[j], 1e-12 * (1 + fabs(expected[j])));
        }
      }
    }
  }
  double out[n];
  CHECK_EQ_INT(ss_kernel_row(&kernels[0], &dense, n, &dense, NULL, out, NULL), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_row(&kernels[0], &dense, -1, &dense, NULL, out, NULL), SS_ERR_BAD_ARG);
}

/* ------------------------------------------------------------------------ */
/*                         Water filling vs sorting                          */
/* ------------------------------------------------------------------------ */

/* The level by sorting: the largest k with k a_k - sum_{j<=k} a_j <= V. */
static double reference_gamma(const double *c, int64_t n, double volume)
{
  double *a = malloc((size_t)n * sizeof(double));
  memcpy(a, c, (size_t)n * sizeof(double));
  qsort(a, (size_t)n, sizeof(double), ss_compare_doubles);
  double sum = 0, gamma = 0;
  for (int64_t k = 0; k < n; ++k) {
    sum += a[k];
    /* level with the k+1 lowest covered */
    gamma = (volume + sum) / (double)(k + 1);
    if (k + 1 == n || gamma <= a[k + 1]) break;
  }
  free(a);
  return gamma;
}

/* Random responses drawn from a few values (ties) or continuous. */
static void random_responses(TuRng *rng, double *c, double *y, int64_t n, int mode)
{
  for (int64_t i = 0; i < n; ++i) {
    double u = tu_rng_uniform(rng);
    c[i] = mode == 0 ? 4 * u - 2 : (mode == 1 ? floor(u * 4) : 1.5);
    y[i] = tu_rng_uniform(rng) < 0.4 ? 1.0 : -1.0;
  }
  y[0] = 1.0;
  y[n - 1] = -1.0;
}

void test_sbp_find_gamma_matches_sorting(void)
{
  TuRng rng;
  tu_rng_init(&rng, 11);
  double c[200], y[200], work[200];
  for (int trial = 0; trial < 3000; ++trial) {
    int64_t n = 1 + (int64_t)(tu_rng_uniform(&rng) * 199);
    random_responses(&rng, c, y, n, trial % 3);
    double volume = (double)n * (0.001 + 2 * tu_rng_uniform(&rng));
    double gamma;
    REQUIRE(ss_sbp_find_gamma(c, n, volume, work, &gamma) == SS_OK);
    double ref = reference_gamma(c, n, volume);
    CHECK_CLOSE(gamma, ref, 1e-9 * (1 + fabs(ref)));
    double poured = 0;
    for (int64_t i = 0; i < n; ++i) poured += c[i] < gamma ? gamma - c[i] : 0;
    CHECK_CLOSE(poured, volume, 1e-9 * (1 + volume));
  }
  double gamma;
  CHECK_EQ_INT(ss_sbp_find_gamma(c, 5, 0.0, work, &gamma), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_sbp_find_gamma(c, 0, 1.0, work, &gamma), SS_ERR_BAD_ARG);
}

void test_sbp_find_gamma_and_bias_matches_sorting(void)
{
  TuRng rng;
  tu_rng_init(&rng, 12);
  double c[150], y[150], work[300];
  for (int trial = 0; trial < 3000; ++trial) {
    int64_t n = 2 + (int64_t)(tu_rng_uniform(&rng) * 148);
    random_responses(&rng, c, y, n, trial % 3);
    double volume = (double)n * (0.001 + 2 * tu_rng_uniform(&rng));
    double gamma, bias, rg, rb;
    int64_t k, rk;
    REQUIRE(ss_sbp_find_gamma_and_bias(y, c, n, volume, work, &gamma, &bias, &k) == SS_OK);
    tu_sbp_reference_levels(y, c, n, volume, &rg, &rb, &rk);
    CHECK_CLOSE(gamma, rg, 1e-9 * (1 + fabs(rg)));
    CHECK_CLOSE(bias, rb, 1e-9 * (1 + fabs(rb)));
    /* The water poured is the volume. */
    double poured = 0;
    for (int64_t i = 0; i < n; ++i) {
      double h = c[i] + y[i] * bias;
      poured += h < gamma ? gamma - h : 0;
    }
    CHECK_CLOSE(poured, volume, 1e-8 * (1 + volume));
  }
  double gamma, bias;
  double y_one[3] = {1, 1, 1};
  CHECK_EQ_INT(ss_sbp_find_gamma_and_bias(y_one, c, 3, 1.0, work, &gamma, &bias, NULL),
               SS_ERR_BAD_DATA);
  double y_bad[3] = {1, 0, -1};
  CHECK_EQ_INT(ss_sbp_find_gamma_and_bias(y_bad, c, 3, 1.0, work, &gamma, &bias, NULL),
               SS_ERR_BAD_DATA);
}

/* The windowed search (the SBP's fast path with a bias): the heights of each
 * class are cut at random values into a lower set (count, sum), a window and
 * the rest above (its minimum). Whenever the search accepts, it must give the
 * sorting reference's levels and count; with the whole data as windows, or
 * windows cut well around the reference's floors, it must accept. */
void test_sbp_two_levels_window_matches_sorting(void)
{
  TuRng rng;
  tu_rng_init(&rng, 13);
  double c[150], y[150], a[150], d[150], scratch[150];
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    int64_t n = 2 + (int64_t)(tu_rng_uniform(&rng) * 148);
    random_responses(&rng, c, y, n, trial % 3);
    double volume = (double)n * (0.001 + 2 * tu_rng_uniform(&rng));
    double rg, rb;
    int64_t rk;
    tu_sbp_reference_levels(y, c, n, volume, &rg, &rb, &rk);
    const double ref_u = rg - rb, ref_v = rg + rb;
    /* The reference's floors: the rk-th lowest height of each class. */
    double floor_ref[2];
    for (int cl = 0; cl < 2; ++cl) {
      int64_t m = 0;
      for (int64_t i = 0; i < n; ++i) {
        if ((y[i] < 0) == cl) scratch[m++] = c[i];
      }
      qsort(scratch, (size_t)m, sizeof(double), ss_compare_doubles);
      floor_ref[cl] = scratch[rk - 1];
    }
    /* mode 0: everything in the windows; 1: random cuts; 2: cuts around the
     * floors; 3: windows ending below the floors (the answer lies above). */
    const int mode = trial % 5 == 4 ? 3 : (trial % 5 == 0 ? 0 : (trial % 5 == 1 ? 2 : 1));
    double lo[2], hi[2];
    for (int cl = 0; cl < 2; ++cl) {
      double r0 = tu_rng_uniform(&rng), r1 = tu_rng_uniform(&rng);
      if (mode == 0) {
        lo[cl] = -INFINITY;
        hi[cl] = INFINITY;
      } else if (mode == 1) {
        lo[cl] = 4 * r0 - 2.5;
        hi[cl] = lo[cl] + 3 * r1;
      } else if (mode == 2) {
        lo[cl] = floor_ref[cl] - 0.5 * r0; /* the floor inside the window */
        hi[cl] = floor_ref[cl] + 1e-9 + 0.5 * r1;
      } else {
        lo[cl] = floor_ref[cl] - 1 - r0;
        hi[cl] = floor_ref[cl];
      }
    }
    int64_t na = 0, nd = 0, ca = 0, cd = 0;
    double sa = 0, sd = 0, above_a = INFINITY, above_d = INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      const int cl = y[i] < 0;
      if (c[i] < lo[cl]) {
        if (cl) { ++cd; sd += c[i]; } else { ++ca; sa += c[i]; }
      } else if (c[i] < hi[cl]) {
        if (cl) d[nd++] = c[i]; else a[na++] = c[i];
      } else if (cl) {
        above_d = fmin(above_d, c[i]);
      } else {
        above_a = fmin(above_a, c[i]);
      }
    }
    SsSbpLevels lv;
    bool ok = ss_sbp_two_levels_window(a, na, ca, sa, above_a, d, nd, cd, sd, above_d, volume,
                                       NULL, scratch, &lv);
    if (mode == 0 || mode == 2) CHECK(ok);
    if (mode == 3) CHECK(!ok);
    if (!ok) {
      ++rejected;
      continue;
    }
    ++accepted;
    CHECK_EQ_INT(lv.covered, rk);
    CHECK_CLOSE(lv.u, ref_u, 1e-9 * (1 + fabs(ref_u)));
    CHECK_CLOSE(lv.v, ref_v, 1e-9 * (1 + fabs(ref_v)));
    CHECK(lv.floor_u <= lv.u && lv.floor_v <= lv.v);
  }
  /* Both outcomes occur (the random cuts reject often). */
  CHECK(accepted > 1600);
  CHECK(rejected > 200);
}

/* ------------------------------------------------------------------------ */
/*                               The object                                  */
/* ------------------------------------------------------------------------ */

enum { KN = 60, KD = 3 };

typedef struct KernelFixture {
  double X[KN * KD], y[KN];
  SsData data;
  SsKernel kernel;
} KernelFixture;

static void fixture(KernelFixture *f, double sep)
{
  tu_make_blobs(f->X, f->y, KN, KD, sep, 5);
  ss_data_init_dense(&f->data, SS_DTYPE_FLOAT64, f->X, KN, KD, KD);
  ss_kernel_init(&f->kernel, SS_KERNEL_RBF, 0.5, 0, 1);
}

void test_kernel_svm_lifecycle_and_rejects(void)
{
  KernelFixture f;
  fixture(&f, 0.8);
  ss_kernel_svm_delete(NULL);
  CHECK(ss_kernel_svm_new((SsKernelSolver)42, &f.kernel, &f.data, f.y, 0.1) == NULL);
  CHECK_EQ_INT(ss_kernel_svm_check_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_check_new(SS_KSOLVER_SBP, NULL, &f.data, f.y, 1), SS_ERR_BAD_ARG);
  double bad_y[KN];
  memcpy(bad_y, f.y, sizeof bad_y);
  bad_y[3] = 0.5;
  CHECK_EQ_INT(ss_kernel_svm_check_new(SS_KSOLVER_SBP, &f.kernel, &f.data, bad_y, 1),
               SS_ERR_BAD_DATA);
  SsKernel pre;
  ss_kernel_init(&pre, SS_KERNEL_PRECOMPUTED, 1, 0, 1);
  CHECK_EQ_INT(ss_kernel_svm_check_new(SS_KSOLVER_SBP, &pre, &f.data, f.y, 1), SS_ERR_BAD_ARG);

  for (int solver = 0; solver <= 4; ++solver) {
    SsKernelSvm *svm = ss_kernel_svm_new((SsKernelSolver)solver, &f.kernel, &f.data, f.y, 0.1);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_lambda(svm, -1), SS_ERR_BAD_ARG);
    /* the SBP's own settings: a bad value, or another solver (which would ignore them) */
    const SsStatus sbp_only = solver == SS_KSOLVER_SBP ? SS_ERR_BAD_ARG : SS_ERR_BAD_STATE;
    CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0), sbp_only);
    CHECK_EQ_INT(ss_kernel_svm_set_eta0(svm, NAN), sbp_only);
    CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0.2), solver == SS_KSOLVER_SBP ? SS_OK : SS_ERR_BAD_STATE);
    CHECK_EQ_INT(ss_kernel_svm_unset_nu(svm), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_eta0(svm, 0.5), solver == SS_KSOLVER_SBP ? SS_OK : SS_ERR_BAD_STATE);
    CHECK(solver == SS_KSOLVER_SBP || ss_kernel_svm_get_eta0(svm) != 0.5);
    /* the budget's, likewise (none of solvers 0-4 keeps a budget) */
    CHECK_EQ_INT(ss_kernel_svm_set_budget(svm, 10), SS_ERR_BAD_STATE);
    CHECK(strstr(ss_kernel_svm_get_last_error(svm), "set_budget applies to the budgeted solvers") != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_budget_maintenance(svm, SS_BUDGET_MAINTENANCE_REMOVE), SS_ERR_BAD_STATE);
    CHECK_EQ_INT(ss_kernel_svm_get_budget_maintenance(svm), SS_BUDGET_MAINTENANCE_AUTO);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, -1), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 0), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, -1), SS_ERR_BAD_ARG);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, 7), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, 0), SS_OK); /* the default again */
    CHECK_EQ_INT(ss_kernel_svm_get_diagnostic_frequency(svm), KN);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1),
                 solver == SS_KSOLVER_SBP || solver == SS_KSOLVER_SDCA ? SS_OK : SS_ERR_BAD_STATE);
    if (solver == SS_KSOLVER_SDCA) ss_kernel_svm_set_unregularized_bias(svm, 0); /* test_kernel_exact.c */
    CHECK_EQ_INT(ss_kernel_svm_get_max_num_iterations(svm), 100 * KN);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 3 * KN), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
    if (solver != SS_KSOLVER_NONE) {
      CHECK_EQ_INT(st->iteration, 3 * KN);
      CHECK(st->num_kernel_evaluations > 0);
      CHECK(ss_kernel_svm_get_num_support_vectors(svm) > 0);
      CHECK(st->training_error < 0.2);
    }
    ss_kernel_svm_delete(svm);
  }
}

/* Training N iterations equals N/2 + N/2, bit for bit, for every solver. */
void test_kernel_svm_warm_start_bitwise(void)
{
  KernelFixture f;
  fixture(&f, 0.5);
  for (int solver = 1; solver <= 4; ++solver) {
    for (int bias = 0; bias <= (solver == SS_KSOLVER_SBP); ++bias) {
      SsKernelSvm *a = ss_kernel_svm_new((SsKernelSolver)solver, &f.kernel, &f.data, f.y, 0.05);
      SsKernelSvm *b = ss_kernel_svm_new((SsKernelSolver)solver, &f.kernel, &f.data, f.y, 0.05);
      REQUIRE(a && b);
      ss_kernel_svm_set_unregularized_bias(a, bias);
      ss_kernel_svm_set_unregularized_bias(b, bias);
      ss_kernel_svm_set_seed(a, 7);
      ss_kernel_svm_set_seed(b, 7);
      ss_kernel_svm_set_epsilon(a, 0);
      ss_kernel_svm_set_epsilon(b, 0);
      ss_kernel_svm_set_max_num_iterations(a, 250);
      ss_kernel_svm_set_max_num_iterations(b, 125);
      CHECK_EQ_INT(ss_kernel_svm_train(a), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_train(b), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(b), 250);
      int64_t m = ss_kernel_svm_get_num_support_vectors(a);
      CHECK_EQ_INT(ss_kernel_svm_get_num_support_vectors(b), m);
      if (m == ss_kernel_svm_get_num_support_vectors(b) && m > 0) {
        CHECK(memcmp(ss_kernel_svm_get_coefficients(a), ss_kernel_svm_get_coefficients(b),
                     (size_t)m * sizeof(double)) == 0);
      }
      CHECK(ss_kernel_svm_get_bias(a) == ss_kernel_svm_get_bias(b));
      CHECK(tu_same_bits(ss_kernel_svm_get_dual_variables(a), ss_kernel_svm_get_dual_variables(b), KN));
      CHECK_EQ_INT(ss_kernel_svm_get_num_kernel_evaluations(a),
                   ss_kernel_svm_get_num_kernel_evaluations(b));
      ss_kernel_svm_delete(a);
      ss_kernel_svm_delete(b);
    }
  }
}

/* Kernel SDCA closes the duality gap: P and D meet. */
void test_kernel_sdca_duality_gap_closes(void)
{
  KernelFixture f;
  fixture(&f, 0.3);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.02);
  REQUIRE(svm);
  ss_kernel_svm_set_epsilon(svm, 1e-10);
  ss_kernel_svm_set_max_num_iterations(svm, 2000 * KN);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->duality_gap >= -1e-12);
  CHECK(st->duality_gap < 1e-10);
  const double C = 1.0 / (0.02 * KN);
  const double *alpha = ss_kernel_svm_get_dual_variables(svm);
  for (int i = 0; i < KN; ++i) CHECK(alpha[i] >= 0 && alpha[i] <= C);
  ss_kernel_svm_delete(svm);
}

/* The model predicts the same scores on the training rows as the solver's
 * own expansion, keeps working after the data is gone (copied support
 * vectors), and a precomputed Gram matrix trains the same SDCA model. */
void test_kernel_svm_model_and_precomputed(void)
{
  KernelFixture f;
  fixture(&f, 0.4);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &f.kernel, &f.data, f.y, 0.05);
  REQUIRE(svm);
  ss_kernel_svm_set_max_num_iterations(svm, 30 * KN);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);

  double gram[KN * KN];
  for (int i = 0; i < KN; ++i) {
    REQUIRE(ss_kernel_row(&f.kernel, &f.data, i, &f.data, NULL, gram + i * KN, NULL) == SS_OK);
  }
  SsData gdata;
  REQUIRE(ss_data_init_dense(&gdata, SS_DTYPE_FLOAT64, gram, KN, KN, KN) == SS_OK);
  SsKernel pre;
  ss_kernel_init(&pre, SS_KERNEL_PRECOMPUTED, 1, 0, 1);
  SsKernelSvm *psvm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &pre, &gdata, f.y, 0.05);
  REQUIRE(psvm);
  ss_kernel_svm_set_max_num_iterations(psvm, 30 * KN);
  CHECK_EQ_INT(ss_kernel_svm_train(psvm), SS_OK);
  const double *a1 = ss_kernel_svm_get_dual_variables(svm);
  const double *a2 = ss_kernel_svm_get_dual_variables(psvm);
  for (int i = 0; i < KN; ++i) CHECK_CLOSE(a1[i], a2[i], 1e-9);

  double s1[KN], s2[KN];
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &f.data, s1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_decision_function(psvm, &gdata, s2), SS_OK);
  for (int i = 0; i < KN; ++i) CHECK_CLOSE(s1[i], s2[i], 1e-8);

  /* Copy the model into a data-less object: same scores. */
  int64_t m = ss_kernel_svm_get_num_support_vectors(svm);
  SsKernelSvm *copy = ss_kernel_svm_new_without_data(SS_KSOLVER_NONE, &f.kernel, KD, 0.05);
  REQUIRE(copy);
  CHECK_EQ_INT(ss_kernel_svm_train(copy), SS_ERR_BAD_STATE);
  CHECK_EQ_INT(ss_kernel_svm_set_model(copy, ss_kernel_svm_get_support_vectors(svm),
                                       ss_kernel_svm_get_support_indices(svm),
                                       ss_kernel_svm_get_coefficients(svm), m, 0.25),
               SS_OK);
  double s3[KN];
  CHECK_EQ_INT(ss_kernel_svm_decision_function(copy, &f.data, s3), SS_OK);
  for (int i = 0; i < KN; ++i) CHECK_CLOSE(s3[i], s1[i] + 0.25, 1e-12);
  double bad = NAN;
  CHECK_EQ_INT(ss_kernel_svm_set_model(copy, NULL, NULL, &bad, 1, 0), SS_ERR_BAD_ARG);
  ss_kernel_svm_delete(copy);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(psvm);
}

static int stop_at_second(const SsKernelSvm *svm, void *user)
{
  (void)svm;
  return ++*(int *)user >= 2;
}

void test_kernel_svm_interrupt(void)
{
  KernelFixture f;
  fixture(&f, 0.5);
  SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SBP, &f.kernel, &f.data, f.y, 0.05);
  REQUIRE(svm);
  int calls = 0;
  ss_kernel_svm_set_diagnostic_frequency(svm, 10);
  ss_kernel_svm_set_diagnostic_function(svm, stop_at_second, &calls);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_INTERRUPTED);
  CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(svm), 20);
  CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_INTERRUPTED);
  CHECK(ss_kernel_svm_get_num_support_vectors(svm) > 0);
  ss_kernel_svm_delete(svm);
}

static int stop_at_third_poll(void *user)
{
  return ++*(int *)user >= 3;
}

/* A run the interrupt poll stopped (Ctrl+C) of Pegasos, SDCA or the
 * Perceptron makes no closing diagnostic: that pass of the n rows against
 * the support vectors took 6-22 s after a Ctrl+C at n = 20,000-40,000, and
 * nothing interrupted it. The model is written (the one an uninterrupted
 * run of as many iterations holds), the statistics say where the run
 * stopped, and the figures only the pass gives are NaN. The SBP (an O(n)
 * diagnostic) still measures. */
void test_kernel_svm_interrupt_poll_makes_no_pass(void)
{
  KernelFixture f;
  fixture(&f, 0.3);
  const SsKernelSolver solvers[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_SDCA, SS_KSOLVER_PERCEPTRON,
                                    SS_KSOLVER_SBP};
  for (int s = 0; s < 4; ++s) {
    SsKernelSvm *svm = ss_kernel_svm_new(solvers[s], &f.kernel, &f.data, f.y, 0.01);
    SsKernelSvm *ref = ss_kernel_svm_new(solvers[s], &f.kernel, &f.data, f.y, 0.01);
    REQUIRE(svm && ref);
    int polls = 0;
    const int64_t stop = 3 * SS_KERNEL_SVM_INTERRUPT_PERIOD;
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, 1000000), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 100000), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 0), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(svm, stop_at_third_poll, &polls), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_INTERRUPTED);
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
    CHECK_EQ_INT(st->iteration, stop);
    CHECK_EQ_INT(ss_kernel_svm_get_iteration_number(svm), stop);
    CHECK_EQ_INT(st->num_support_vectors, ss_kernel_svm_get_num_support_vectors(svm));
    CHECK_EQ_INT(st->num_kernel_evaluations, ss_kernel_svm_get_num_kernel_evaluations(svm));
    CHECK(ss_kernel_svm_get_num_support_vectors(svm) > 0);
    if (solvers[s] == SS_KSOLVER_SBP) {
      CHECK(isfinite(st->primal_objective));
    } else {
      CHECK(isnan(st->primal_objective) && isnan(st->objective) && isnan(st->loss));
      CHECK(isnan(st->training_error) && isnan(st->duality_gap));
    }
    /* the model: that of the same iterations run to their cap */
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(ref, 1000000), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(ref, stop), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_sdca_finish(ref, SS_KERNEL_SDCA_FINISH_OFF), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(ref), SS_OK);
    const int64_t m = ss_kernel_svm_get_num_support_vectors(ref);
    CHECK_EQ_INT(ss_kernel_svm_get_num_support_vectors(svm), m);
    if (solvers[s] != SS_KSOLVER_PEGASOS) { /* (Pegasos's cap closes on its ray) */
      const double *a = ss_kernel_svm_get_coefficients(svm), *b = ss_kernel_svm_get_coefficients(ref);
      for (int64_t j = 0; j < m; ++j) CHECK_CLOSE(a[j], b[j], 0);
    }
    ss_kernel_svm_delete(svm);
    ss_kernel_svm_delete(ref);
  }
}

static int stop_at_call(void *user)
{
  int *calls = user; /* [0]: calls so far, [1]: the call that stops */
  return ++calls[0] >= calls[1];
}

static int count_diagnostics(const SsKernelSvm *svm, void *user)
{
  (void)svm;
  ++*(int *)user;
  return 0;
}

/* A run's diagnostic pass polls the interrupt function between slabs of
 * rows: a Ctrl+C that comes during the pass (seconds on large data) stops
 * it there; the diagnostic function is not called for it and the run ends
 * as at a poll (no figures). The 10th call is the first inside the
 * diagnostic at iteration 640 (9 polls come before it); without the poll in
 * the pass it is the poll after that diagnostic, which the diagnostic
 * function has then seen. Threads change nothing. */
void test_kernel_svm_interrupt_polls_in_the_pass(void)
{
  enum { n = 400, d = 2 };
  static double X[n * d], y[n];
  tu_make_blobs(X, y, n, d, 0.0, 11);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, n, d, d) == SS_OK);
  SsKernel kernel;
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1);
  for (int threads = 1; threads <= 2; ++threads) {
    SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_PEGASOS, &kernel, &data, y, 1e-4);
    REQUIRE(svm);
    svm->pass_poll_evaluations = 50 * 64; /* a slab of about 64 rows at m = 50 */
    int calls[2] = {0, 10}, diagnostics = 0;
    CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, threads), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, 640), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 100000), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm, 0), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(svm, stop_at_call, calls), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_function(svm, count_diagnostics, &diagnostics), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_INTERRUPTED);
    CHECK(ss_kernel_svm_get_num_support_vectors(svm) > 50); /* so the pass has several slabs */
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
    CHECK_EQ_INT(calls[0], 10);
    CHECK_EQ_INT(diagnostics, 0);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
    CHECK_EQ_INT(st->iteration, 640);
    CHECK(isnan(st->primal_objective));
    CHECK_EQ_INT(st->num_support_vectors, ss_kernel_svm_get_num_support_vectors(svm));
    /* usable: it trains on from there, its next diagnostic measured */
    CHECK_EQ_INT(ss_kernel_svm_set_interrupt_function(svm, NULL, NULL), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 640), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_sdca_finish(svm, SS_KERNEL_SDCA_FINISH_OFF), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    CHECK(isfinite(ss_kernel_svm_get_statistics(svm)->primal_objective));
    ss_kernel_svm_delete(svm);
  }
}
