/* test_fuzz_regressions.c -- one test per defect the libFuzzer harnesses
 * (tests/fuzz/) found in the C core; each names the harness and the input
 * class. The inputs themselves are in tests/fuzz/corpus/ and are replayed by
 * `meson test` (fuzz-replay-*). */
#include <math.h>
#include <stdlib.h>

#include "../../src/core/budget/budget.h"
#include "minitest.h"
#include "stochsvm/homkermap.h"
#include "stochsvm/model_file.h"
#include "stochsvm/svm.h"

/* fuzz_data: an all-zero CSR matrix given NULL values and indices (allowed
 * when indptr[n] = 0) made the row kernels offset a null pointer (undefined
 * behaviour, reported by UBSan). The descriptor now points them at an empty
 * array of its own. */
void test_fuzz_csr_all_zero_null_arrays(void) {
  int64_t indptr[3] = {0, 0, 0};
  double labels[2] = {1, -1}, w[3] = {1, 2, 3};
  SsData d;
  REQUIRE(ss_data_init_csr(&d, SS_DTYPE_FLOAT32, NULL, indptr, NULL, 2, 3) == SS_OK);
  CHECK(d.values != NULL);
  CHECK(d.indices != NULL);
  CHECK_EQ_INT(ss_data_inner_product(&d, 1, w), 0);
  ss_data_accumulate(&d, 0, w, 2.0);
  CHECK_EQ_INT(w[2], 3);
  for (int solver = SS_SOLVER_SGD; solver <= SS_SOLVER_SDCA; ++solver) {
    SsSvm *svm = ss_svm_new((SsSolver)solver, &d, labels, 0.1);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 10), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    CHECK_EQ_INT(ss_svm_get_model(svm)[0], 0);
    ss_svm_delete(svm);
  }
}

/* fuzz_setters: SDCA (hinge loss, shrinking on) trained from an iteration
 * number near INT64_MAX computed epoch_start + n past INT64_MAX (signed
 * overflow, reported by UBSan) at the end of every piece of an epoch. */
void test_fuzz_sdca_iteration_near_int64_max(void) {
  double X[8] = {1, 0, 0, 1, -1, 0, 0, -1}, y[4] = {1, 1, -1, -1};
  SsData d;
  REQUIRE(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, X, 4, 2, 2) == SS_OK);
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, &d, y, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_get_shrinking(svm), 1);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, INT64_MAX - 10), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 10), SS_OK); /* all the room left */
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), INT64_MAX);
  CHECK(isfinite(ss_svm_get_model(svm)[0]));
  ss_svm_delete(svm);
}

/* fuzz_data: on data with huge values a score can overflow to +inf while w
 * stays finite; on the right side of the margin its loss is 0, so the
 * objective was finite and train returned SS_OK with infinite scores. A
 * non-finite score became SS_ERR_NUMERIC, as a non-finite objective; the
 * input of the finding (values 1e300, whose squares overflow) is now
 * refused before training. */
void test_fuzz_score_overflow_is_numeric(void) {
  double X[2] = {1e300, -1e300}, y[2] = {1, -1}, w[1] = {1e10};
  SsData d;
  REQUIRE(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, X, 2, 1, 1) == SS_OK);
  SsSvm *svm = ss_svm_new(SS_SOLVER_NONE, &d, y, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_set_model(svm, w), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_DATA);
  CHECK(ss_svm_get_scores(svm) == NULL); /* no infinite scores handed out */
  ss_svm_delete(svm);
}

/* fuzz_homkermap: a subnormal period made L = 2 pi / P infinite, the
 * coefficients NaN or 0 and Psi(x) NaN. Periods whose angle L ln x can
 * overflow are rejected; the smallest accepted ones give a finite map. */
void test_fuzz_homkermap_tiny_period(void) {
  SsHomKerMap map;
  double psi[7];
  CHECK_EQ_INT(ss_homkermap_init(&map, SS_HOMKERNEL_INTERSECTION, 0.25, 1, 3.1126135687998532e-322,
                                 SS_HOMWINDOW_UNIFORM), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_homkermap_init(&map, SS_HOMKERNEL_CHI2, 1.0, 3, 1e-306, SS_HOMWINDOW_UNIFORM),
               SS_ERR_BAD_ARG);
  REQUIRE(ss_homkermap_init(&map, SS_HOMKERNEL_CHI2, 1.0, 3, 1e-304, SS_HOMWINDOW_UNIFORM) == SS_OK);
  const double xs[4] = {-2.0, 4.9e-324, 1e300, 0.5};
  for (int i = 0; i < 4; ++i) {
    ss_homkermap_evaluate(&map, xs[i], psi, 1);
    for (int r = 0; r < 7; ++r) CHECK(isfinite(psi[r]));
  }
}

/* Bad-input matrix (docs/bad_inputs.rst), "getters before training": the
 * statistics of an untrained object read objective 0, which looks like the
 * objective of a model. Every figure is NaN until the first train. */
void test_untrained_statistics_are_nan(void) {
  double X[2] = {1, -1}, y[2] = {1, -1};
  SsData d;
  REQUIRE(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, X, 2, 1, 1) == SS_OK);
  SsSvm *svm = ss_svm_new(SS_SOLVER_SGD, &d, y, 0.1);
  SsSvm *bare = ss_svm_new_without_data(SS_SOLVER_SDCA, 1, 0.1);
  REQUIRE(svm != NULL && bare != NULL);
  const SsSvm *objects[2] = {svm, bare};
  for (int k = 0; k < 2; ++k) {
    const SsSvmStatistics *st = ss_svm_get_statistics(objects[k]);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_UNTRAINED);
    CHECK(isnan(st->objective) && isnan(st->regularizer) && isnan(st->loss));
    CHECK(isnan(st->dual_objective) && isnan(st->duality_gap) && isnan(st->scores_variation));
  }
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(isfinite(ss_svm_get_statistics(svm)->objective));
  /* set_data clears them again */
  CHECK_EQ_INT(ss_svm_set_data(svm, &d, y), SS_OK);
  CHECK(isnan(ss_svm_get_statistics(svm)->objective));
  ss_svm_delete(svm);
  ss_svm_delete(bare);
}

/* fuzz_homkermap: the Jensen-Shannon signature multiplied e^(l/2) (inf for
 * l > 1419) by log(1 + e^-l) (0): NaN. With the rectangular window and a
 * period above 2838 the integrals of the coefficients were NaN, every
 * coefficient was dropped and the map sent every input to 0 -- silently.
 * (A period that long is a poor approximation anyway; the map must still
 * be a map.) */
void test_fuzz_homkermap_js_long_period(void) {
  SsHomKerMap map;
  double psi[7];
  REQUIRE(ss_homkermap_init(&map, SS_HOMKERNEL_JS, 1.0, 3, 1e4, SS_HOMWINDOW_RECTANGULAR) == SS_OK);
  for (int k = 0; k <= 3; ++k) CHECK(isfinite(map.coefficient[k]) && map.coefficient[k] > 0);
  ss_homkermap_evaluate(&map, 2.0, psi, 1);
  double n2 = 0;
  for (int r = 0; r < 7; ++r) n2 += psi[r] * psi[r];
  CHECK(n2 > 0 && isfinite(n2));
}

/* fuzz_homkermap: with the rectangular window and a period just above the
 * smallest accepted one, (2/P) times the Simpson sum overflowed before the
 * step h (of order P) brought it back: c_0 = inf. */
void test_fuzz_homkermap_rectangular_tiny_period(void) {
  SsHomKerMap map;
  double psi[7];
  REQUIRE(ss_homkermap_init(&map, SS_HOMKERNEL_JS, 2.75, 3, 2.741575655172238e-305,
                            SS_HOMWINDOW_RECTANGULAR) == SS_OK);
  for (int k = 0; k <= 3; ++k) CHECK(isfinite(map.coefficient[k]) && map.coefficient[k] >= 0);
  CHECK(map.coefficient[0] > 0);
  ss_homkermap_evaluate(&map, 0.5, psi, 1);
  for (int r = 0; r < 7; ++r) CHECK(isfinite(psi[r]));
}

/* fuzz_model_file: scoring with a kernel model allocated and swept a dense
 * scratch vector of the declared dimension d for every query row, so a
 * 300-byte file declaring d = 10^9 made predict allocate gigabytes (and a
 * sparse model of hashed features was O(d) per row). Scoring now uses no
 * scratch vector (a dense row is read at the support vectors' columns, a
 * CSR row merged with them); ||x||^2 still uses every column (checked here
 * against the formula, with a query column no support vector has). Where
 * calloc(16 GiB) succeeds this test was only slow before the fix; the corpus
 * inputs regression-kernel-huge-dimension and regression-kernel-sv-at-huge-column
 * fail run.sh (malloc limit 2 GiB). */
void test_fuzz_model_kernel_huge_dimension(void) {
  int64_t sv_indptr[] = {0, 2, 3};
  int32_t sv_indices[] = {0, 5, 2};
  double sv_values[] = {1.0, -2.0, 0.5}, coef[] = {0.75, -1.5}, bias[] = {0.25};
  double labels[] = {-1, 1};
  SsModel m;
  ss_model_init(&m);
  m.kind = SS_MODEL_KERNEL;
  m.task = SS_TASK_BINARY;
  m.dimension = INT32_MAX; /* the largest valid: 16 GiB of scratch before the fix */
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = labels;
  m.biases = bias;
  m.kernel = SS_MODEL_KERNEL_RBF;
  m.gamma = 0.1;
  m.degree = 1;
  m.num_support_vectors = 2;
  m.sv_indptr = sv_indptr;
  m.sv_indices = sv_indices;
  m.sv_values = sv_values;
  m.coefficients = coef;
  REQUIRE(ss_model_validate(&m, NULL, 0) == SS_OK);
  /* two query rows: {0: 2, 2: 1, 1e9: 3} and {5: 1} */
  int64_t indptr[] = {0, 3, 4};
  int32_t indices[] = {0, 2, 1000000000, 5};
  double values[] = {2.0, 1.0, 3.0, 1.0};
  SsData data;
  REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, values, indptr, indices, 2, m.dimension) == SS_OK);
  double scores[2];
  CHECK_EQ_INT(ss_model_decision_function(&m, &data, scores), SS_OK);
  /* ||x - z||^2 by hand: row 0 vs sv0 = (2-1)^2 + 1 + 9 + 4 = 15, vs sv1 = 4 + 0.25 + 9 = 13.25;
   * row 1 vs sv0 = 1 + (1+2)^2 = 10, vs sv1 = 1 + 0.25 = 1.25 */
  CHECK_CLOSE(scores[0], 0.25 + 0.75 * exp(-1.5) - 1.5 * exp(-1.325), 1e-12);
  CHECK_CLOSE(scores[1], 0.25 + 0.75 * exp(-1.0) - 1.5 * exp(-0.125), 1e-12);
}

/* fuzz_kernel_train (long run): BSGD with a step that overflowed left every
 * coefficient of the expansion infinite or NaN; ss_budget_smallest found no
 * |beta| below INFINITY and returned -1, and removal read and wrote
 * beta[-1], origin[-1] and the point before the array (heap overflow under
 * ASan). The smallest is now always an index, a NaN counting as smallest;
 * the corpus input regression-budget-all-nonfinite replays the run. */
void test_fuzz_budget_maintenance_nonfinite_coefficients(void) {
  const SsBudgetStrategy strategies[] = {SS_BUDGET_REMOVE, SS_BUDGET_PROJECT, SS_BUDGET_MERGE};
  for (int s = 0; s < 3; ++s) {
    SsBudgetKernel kern = {SS_BUDGET_KERNEL_GAUSSIAN, 0.5, 0.0, 1};
    SsBudget bud;
    REQUIRE(ss_budget_init(&bud, 2, 2, 3) == SS_OK);
    double z0[2] = {1, 2}, z1[2] = {0, 1}, z2[2] = {3, 0};
    ss_budget_append_dense(&bud, z0, INFINITY, 0);
    ss_budget_append_dense(&bud, z1, NAN, 1);
    ss_budget_append_dense(&bud, z2, -INFINITY, 2);
    CHECK_EQ_INT(ss_budget_smallest(&bud), 1);
    SsBudgetCounts counts = {0};
    ss_budget_maintain(&bud, strategies[s], &kern, &counts);
    CHECK_EQ_INT(bud.size, 2);
    if (strategies[s] == SS_BUDGET_REMOVE) {
      /* the NaN term went; the infinite ones stay, slot_of follows */
      CHECK(isinf(bud.beta[0]) && isinf(bud.beta[1]));
      CHECK_EQ_INT(bud.slot_of[1], -1);
    }
    ss_budget_free(&bud);
  }
  /* fuzz_kernel_train, again: with that fixed, the merge took the smallest
   * term (+inf) and a +inf partner; mu = inf / inf = NaN went through (int)
   * in the table lookup (undefined; clang's UBSan, corpus input
   * regression-budget-merge-infinite). Now the lookup clamps before the
   * conversion and the merge ends as a removal or a merge of finite size. */
  SsBudgetKernel gauss = {SS_BUDGET_KERNEL_GAUSSIAN, 0.5, 0.0, 1};
  SsBudget bud;
  REQUIRE(ss_budget_init(&bud, 2, 2, 0) == SS_OK);
  double z0[2] = {1, 2}, z1[2] = {1, 1.5}, z2[2] = {3, 0};
  ss_budget_append_dense(&bud, z0, INFINITY, -1);
  ss_budget_append_dense(&bud, z1, INFINITY, -1);
  ss_budget_append_dense(&bud, z2, INFINITY, -1);
  SsBudgetCounts counts = {0};
  ss_budget_maintain(&bud, SS_BUDGET_MERGE, &gauss, &counts);
  CHECK_EQ_INT(bud.size, 2);
  CHECK_EQ_INT(counts.num_maintenance, 1);
  ss_budget_free(&bud);
}
