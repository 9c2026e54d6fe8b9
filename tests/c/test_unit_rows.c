/* test_unit_rows.c -- CSR rows whose stored values are all 1 (0/1 features):
 * the linear solvers' steps take the path that never loads the values
 * (steps_kinds.h, csr_unit), and their results are bitwise those of the
 * typed path on the same rows. The typed path is forced by storing one
 * explicit 0.0 at the end of every row (a column no row uses): it adds
 * 0 * w = 0 to the dot product's last partial sum and 0 to w, so the
 * arithmetic, and the row norms, are unchanged. */
#include "minitest.h"
#include "testutil.h"

#include "../../src/core/linear/svm_internal.h"

#include <stdlib.h>
#include <string.h>

enum { UN = 240, UD = 24 }; /* the last column stays empty in the 0/1 rows */

typedef struct UnitRows {
  int64_t indptr[UN + 1], indptr0[UN + 1];
  int32_t indices[UN * UD], indices0[UN * (UD + 1)];
  double values[UN * UD], values0[UN * (UD + 1)];
  float values_f32[UN * UD];
  double y[UN];
} UnitRows;

/* Random 0/1 rows (density about 0.3, column UD - 1 unused), labels from a
 * noisy linear rule; and the same rows with an explicit 0 in column UD - 1. */
static void unit_rows(UnitRows *r, uint64_t seed)
{
  TuRng rng;
  tu_rng_init(&rng, seed);
  double w[UD];
  for (int k = 0; k < UD; ++k) w[k] = tu_rng_uniform(&rng) - 0.5;
  int64_t nnz = 0, nnz0 = 0;
  r->indptr[0] = r->indptr0[0] = 0;
  for (int i = 0; i < UN; ++i) {
    double s = 0.1 * (tu_rng_uniform(&rng) - 0.5);
    for (int k = 0; k < UD - 1; ++k) {
      if (tu_rng_uniform(&rng) >= 0.3) continue;
      r->indices[nnz] = r->indices0[nnz0] = k;
      r->values[nnz] = r->values0[nnz0] = 1.0;
      r->values_f32[nnz] = 1.0f;
      ++nnz, ++nnz0;
      s += w[k];
    }
    r->indices0[nnz0] = UD - 1;
    r->values0[nnz0++] = 0.0;
    r->indptr[i + 1] = nnz;
    r->indptr0[i + 1] = nnz0;
    r->y[i] = s >= 0 ? 1.0 : -1.0;
  }
}

/* The rows of seed @p seed as float64 and float32 ones, and with the explicit zeros. */
static bool unit_data(UnitRows *r, uint64_t seed, SsData *ones, SsData *ones_f32, SsData *zero)
{
  unit_rows(r, seed);
  return ss_data_init_csr(ones, SS_DTYPE_FLOAT64, r->values, r->indptr, r->indices, UN, UD) == SS_OK &&
         ss_data_init_csr(ones_f32, SS_DTYPE_FLOAT32, r->values_f32, r->indptr, r->indices, UN, UD) == SS_OK &&
         ss_data_init_csr(zero, SS_DTYPE_FLOAT64, r->values0, r->indptr0, r->indices0, UN, UD) == SS_OK;
}

static SsSvm *train(SsSolver solver, SsLoss loss, const SsData *data, const double *y)
{
  SsSvm *svm = ss_svm_new(solver, data, y, 1e-2);
  if (!svm) return NULL;
  CHECK_EQ_INT(ss_svm_set_loss(svm, loss), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 7 * UN + 13), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  return svm;
}

void test_unit_rows_detected(void)
{
  UnitRows *r = malloc(sizeof *r);
  REQUIRE(r != NULL);
  SsData ones, ones_f32, zero;
  REQUIRE(unit_data(r, 3, &ones, &ones_f32, &zero));
  CHECK(ss_data_unit_values(&ones));
  CHECK(ss_data_unit_values(&ones_f32));
  CHECK(!ss_data_unit_values(&zero));
  SsSvm *a = ss_svm_new(SS_SOLVER_SDCA, &ones, r->y, 1e-2), *b = ss_svm_new(SS_SOLVER_SDCA, &zero, r->y, 1e-2);
  REQUIRE(a != NULL && b != NULL);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(a, UN), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(b, UN), SS_OK);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  CHECK(a->source.unit_values);
  CHECK(!b->source.unit_values);
  /* new data: found again */
  CHECK_EQ_INT(ss_svm_set_data(a, &zero, r->y), SS_OK);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK(!a->source.unit_values);
  CHECK_EQ_INT(ss_svm_set_data(b, &ones_f32, r->y), SS_OK);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  CHECK(b->source.unit_values);
  /* a value of the borrowed array changed before train: trained on as
   * given, by the typed path (its model moves off the 0/1 one) */
  const double before = ss_svm_get_model(b)[r->indices[0]];
  CHECK_EQ_INT(ss_svm_set_data(a, &ones, r->y), SS_OK);
  r->values[0] = 2.0;
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK(!a->source.unit_values);
  CHECK(ss_svm_get_model(a)[r->indices[0]] != before);
  ss_svm_delete(a);
  ss_svm_delete(b);
  free(r);
}

void test_unit_rows_bitwise(void)
{
  UnitRows *r = malloc(sizeof *r);
  REQUIRE(r != NULL);
  SsData ones, ones_f32, zero;
  REQUIRE(unit_data(r, 5, &ones, &ones_f32, &zero));
  const struct { SsSolver solver; SsLoss loss; } runs[] = {
    {SS_SOLVER_SDCA, SS_LOSS_LOGISTIC}, {SS_SOLVER_SDCA, SS_LOSS_HINGE}, {SS_SOLVER_SDCA, SS_LOSS_HINGE2},
    {SS_SOLVER_SGD, SS_LOSS_HINGE},     {SS_SOLVER_SVMSGD2, SS_LOSS_LOGISTIC},
    {SS_SOLVER_SGDQN, SS_LOSS_HINGE2},  /* SGD-QN's rescaled step: ROW_AXPY_DIAG */
  };
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
    SsSvm *a = train(runs[k].solver, runs[k].loss, &ones, r->y);
    SsSvm *f = train(runs[k].solver, runs[k].loss, &ones_f32, r->y);
    SsSvm *b = train(runs[k].solver, runs[k].loss, &zero, r->y);
    REQUIRE(a != NULL && f != NULL && b != NULL);
    const double ba = ss_svm_get_bias(a), bf = ss_svm_get_bias(f), bb = ss_svm_get_bias(b);
    CHECK(tu_same_bits(ss_svm_get_model(a), ss_svm_get_model(b), UD));
    CHECK(tu_same_bits(ss_svm_get_model(f), ss_svm_get_model(b), UD));
    CHECK(tu_same_bits(&ba, &bb, 1) && tu_same_bits(&bf, &bb, 1));
    /* and the runs moved: the models are not all zero */
    double norm = 0;
    for (int j = 0; j < UD; ++j) norm += fabs(ss_svm_get_model(a)[j]);
    CHECK(norm > 0);
    if (runs[k].solver == SS_SOLVER_SDCA)
      CHECK(tu_same_bits(ss_svm_get_dual_variables(a), ss_svm_get_dual_variables(b), UN));
    ss_svm_delete(a);
    ss_svm_delete(f);
    ss_svm_delete(b);
  }
  free(r);
}
