/* test_steps_prefetch.c -- the linear steps' prefetches (steps_kinds.h,
 * SS_STEPS_PREFETCH examples ahead) only start loads: the typed CSR loop,
 * which prefetches, gives bitwise the iterates of the generic loop, which
 * does not (abstract data whose two callbacks are the same row kernels on
 * the same descriptor; the row norms are computed through the callbacks for
 * both): SDCA and SGD, whose loops are the same for both kinds. Rows as
 * ijcnn1's: real values, about 13 of 22 features stored. The sizes put n below, at and just above the prefetch distance and its
 * half (the rows' distance), where the loops' guards end the prefetches;
 * under ASan a prefetch address computed past the arrays would be caught
 * when the index array is read to form it. */
#include "minitest.h"
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

enum { PD = 22 };

typedef struct RealRows {
  int64_t *indptr;
  int32_t *indices;
  double *values, *y;
} RealRows;

/* n random rows of PD columns, each column stored with probability 0.6,
 * values uniform in [-1, 1]; labels from a noisy linear rule. */
static bool real_rows(RealRows *r, int64_t n, uint64_t seed)
{
  r->indptr = malloc((size_t)(n + 1) * sizeof *r->indptr);
  r->indices = malloc((size_t)(n * PD) * sizeof *r->indices);
  r->values = malloc((size_t)(n * PD) * sizeof *r->values);
  r->y = malloc((size_t)n * sizeof *r->y);
  if (!r->indptr || !r->indices || !r->values || !r->y) return false;
  TuRng rng;
  tu_rng_init(&rng, seed);
  double w[PD];
  for (int k = 0; k < PD; ++k) w[k] = tu_rng_uniform(&rng) - 0.5;
  int64_t nnz = 0;
  r->indptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    double s = 0.2 * (tu_rng_uniform(&rng) - 0.5);
    for (int k = 0; k < PD; ++k) {
      if (tu_rng_uniform(&rng) >= 0.6) continue;
      const double v = 2 * tu_rng_uniform(&rng) - 1;
      r->indices[nnz] = k;
      r->values[nnz++] = v;
      s += w[k] * v;
    }
    r->indptr[i + 1] = nnz;
    r->y[i] = s >= 0 ? 1.0 : -1.0;
  }
  return true;
}

static void free_rows(RealRows *r)
{
  free(r->indptr);
  free(r->indices);
  free(r->values);
  free(r->y);
}

/* The callbacks of the abstract-data object: the descriptor's own kernels. */
static double descriptor_inner_product(const void *data, int64_t i, const double *w)
{
  return ss_data_inner_product(data, i, w);
}

static void descriptor_accumulate(const void *data, int64_t i, double *w, double multiplier)
{
  ss_data_accumulate(data, i, w, multiplier);
}

static void train(SsSvm *svm, SsLoss loss, int64_t n)
{
  CHECK_EQ_INT(ss_svm_set_loss(svm, loss), SS_OK);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 6 * n + 1), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
}

void test_steps_prefetch_bitwise(void)
{
  const int64_t sizes[] = {1, 3, 4, 5, 8, 9, 17, 300};
  const struct { SsSolver solver; SsLoss loss; } runs[] = {
    {SS_SOLVER_SDCA, SS_LOSS_LOGISTIC}, {SS_SOLVER_SDCA, SS_LOSS_HINGE}, /* hinge: shrinking's active list */
    {SS_SOLVER_SGD, SS_LOSS_HINGE},     {SS_SOLVER_SGD, SS_LOSS_LOGISTIC},
  }; /* (SVMSGD2 and SGD-QN: their skip follows the data's density, 1 for abstract data) */
  for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; ++a) {
    const int64_t n = sizes[a];
    RealRows r;
    REQUIRE(real_rows(&r, n, 40 + (uint64_t)a));
    SsData data;
    REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, r.values, r.indptr, r.indices, n, PD) == SS_OK);
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
      SsSvm *typed = ss_svm_new(runs[k].solver, &data, r.y, 1.0 / (double)n);
      SsSvm *generic = ss_svm_new_with_abstract_data(runs[k].solver, &data, PD, n, r.y, 1.0 / (double)n,
                                                     descriptor_inner_product, descriptor_accumulate);
      REQUIRE(typed != NULL && generic != NULL);
      train(typed, runs[k].loss, n);
      train(generic, runs[k].loss, n);
      const double bt = ss_svm_get_bias(typed), bg = ss_svm_get_bias(generic);
      CHECK(tu_same_bits(ss_svm_get_model(typed), ss_svm_get_model(generic), PD));
      CHECK(tu_same_bits(&bt, &bg, 1));
      if (runs[k].solver == SS_SOLVER_SDCA)
        CHECK(tu_same_bits(ss_svm_get_dual_variables(typed), ss_svm_get_dual_variables(generic), n));
      /* the runs moved */
      double norm = fabs(bt);
      for (int j = 0; j < PD; ++j) norm += fabs(ss_svm_get_model(typed)[j]);
      CHECK(norm > 0);
      ss_svm_delete(typed);
      ss_svm_delete(generic);
    }
    free_rows(&r);
  }
}
