/* fuzz_data.c -- SsData from arbitrary bytes: dense or CSR, float32 or
 * float64, with broken strides, indptr, unsorted, duplicate or out-of-range
 * indices, NaN/inf values, zero rows and huge dimensions. What the init
 * functions accept must be safe to read: every row's inner product and
 * accumulation are checked against a direct computation, and every solver
 * gets an object on it (ss_svm_check_new and ss_svm_new must agree) and a
 * short training run, and the same again through the abstract-data
 * constructor (ss_svm_new_with_abstract_data, also with fuzzed sizes). */
#include "fuzz_common.h"

/* Objects are only built when the model fits in this many doubles. */
#define FZ_MAX_MODEL ((int64_t)1 << 20)

/* <w, x_i> summed in column order, and in *scale the sum of |w_j x_ij| (the
 * core may sum in another order: they agree to rounding relative to it). */
static double direct_row_dot(const FzProblem *p, int64_t i, const double *w, double *scale)
{
  const SsData *x = &p->data;
  double sum = 0;
  *scale = 0;
  if (x->layout == SS_LAYOUT_DENSE) {
    for (int64_t j = 0; j < x->dimension; ++j) {
      int64_t k = i * x->row_stride + j;
      double v = x->dtype == SS_DTYPE_FLOAT32 ? ((const float *)x->values)[k] : ((const double *)x->values)[k];
      sum += v * w[j];
      *scale += fabs(v * w[j]);
    }
  } else {
    for (int64_t k = x->indptr[i]; k < x->indptr[i + 1]; ++k) {
      double v = x->dtype == SS_DTYPE_FLOAT32 ? ((const float *)x->values)[k] : ((const double *)x->values)[k];
      sum += v * w[x->indices[k]];
      *scale += fabs(v * w[x->indices[k]]);
    }
  }
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
  FzInput in = {bytes, size};
  fz_check_solver_table();
  FzProblem p;
  fz_problem_build(&p, &in, 8, 8, 1);
  if (p.init_status != SS_OK) {
    FZ_ASSERT(p.init_status == SS_ERR_BAD_ARG || p.init_status == SS_ERR_BAD_DATA);
    fz_problem_free(&p);
    return 0;
  }
  const SsData *x = &p.data;
  FZ_ASSERT(x->num_data == p.n && x->num_data >= 1 && x->dimension >= 1);

  /* Row kernels against a direct sum, on a model small enough to allocate. */
  int64_t D = ss_data_get_dimension(x);
  if (D <= FZ_MAX_MODEL) {
    double *w = calloc((size_t)D, sizeof(double));
    for (int64_t j = 0; j < D && j < 64; ++j) w[j] = (double)((j % 7) - 3) / 4.0;
    for (int64_t i = 0; i < x->num_data; ++i) {
      double got = ss_data_inner_product(x, i, w);
      double scale;
      double want = direct_row_dot(&p, i, w, &scale);
      FZ_ASSERT(got == want || fabs(got - want) <= 1e-12 * scale || !isfinite(scale));
      ss_data_accumulate(x, i, w, 0.5);
    }
    free(w);
  }

  /* Optionally a kernel map on the fly. */
  if (fz_byte(&in) & 1) {
    SsStatus s = fz_attach_map(&p, &in);
    FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_ARG);
    if (s != SS_OK) {
      fz_problem_free(&p);
      return 0;
    }
    D = ss_data_get_dimension(x);
  }

  const double lambda = fz_positive(&in);
  for (int k = 0; k < FZ_NUM_SOLVERS; ++k) {
    SsStatus check = ss_svm_check_new(fz_solvers[k], x, p.labels, lambda);
    if (D > FZ_MAX_MODEL) continue;
    SsSvm *svm = ss_svm_new(fz_solvers[k], x, p.labels, lambda);
    FZ_ASSERT((check == SS_OK) == (svm != NULL));
    if (!svm) continue;
    int64_t iterations = 1 + fz_range(&in, 0, 63);
    /* RES factors a D x D matrix at every step: at D near its limit of
     * 1024, 64 steps take seconds optimised and minutes under the fuzzer's
     * instrumentation. The step does not depend on D beyond its size, so
     * large-D RES objects are built and checked but train for one step only
     * when D <= 256, and not at all above. */
    if (fz_solvers[k] == SS_SOLVER_RES && D > 64) iterations = D <= 256 ? 1 : 0;
    /* LRES likewise: a 64-step run at large D (a kernel map) took 76 s
     * under the instrumentation (the timeout input of 2026-11-26, the same
     * with the code of the day before). */
    if (fz_solvers[k] == SS_SOLVER_LRES && D > 64) iterations = D <= 256 ? 1 : 0;
    const SsLoss loss = fz_losses[fz_range(&in, 0, FZ_NUM_LOSSES - 1)];
    if (iterations == 0) {
      ss_svm_delete(svm);
      continue;
    }
    ss_svm_set_max_num_iterations(svm, iterations);
    ss_svm_set_loss(svm, loss);
    SsStatus s = fz_svm_train(svm);
    FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_DATA || s == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED || fz_size_refused(svm, s));
    if (s == SS_OK) fz_check_finite_model(svm);

    /* The same data seen only through the abstract-data callbacks (with a
     * fuzzed, possibly invalid, size): refused, or the same training. */
    const int64_t n_abstract = fz_byte(&in) < 224 ? x->num_data : fz_int64(&in);
    const int64_t d_abstract = fz_byte(&in) < 224 ? D : fz_int64(&in);
    const int valid = n_abstract >= 1 && n_abstract <= x->num_data && d_abstract == D;
    /* (a size the data does not have would make the callbacks read out of
     * bounds: only valid sizes and sizes the core must refuse are tried) */
    SsSvm *abstract = valid || n_abstract < 1 || d_abstract < 1
                          ? ss_svm_new_with_abstract_data(fz_solvers[k], x, d_abstract, n_abstract,
                                                          p.labels, lambda,
                                                          (SsInnerProductFunction)ss_data_inner_product,
                                                          (SsAccumulateFunction)ss_data_accumulate)
                          : NULL;
    if (!valid) FZ_ASSERT(abstract == NULL);
    if (abstract && valid) {
      ss_svm_set_max_num_iterations(abstract, iterations);
      ss_svm_set_loss(abstract, loss);
      /* the default skip of SVMSGD2 and SGD-QN comes from the data's density,
       * which abstract data does not reveal: give it the descriptor's */
      ss_svm_set_skip(abstract, ss_svm_get_skip(svm));
      SsStatus a = fz_svm_train(abstract);
      FZ_ASSERT(a == SS_OK || a == SS_ERR_BAD_DATA || a == SS_ERR_NUMERIC || a == SS_ERR_DIVERGED ||
                fz_size_refused(abstract, a));
      if (a == SS_OK) fz_check_finite_model(abstract);
      if (n_abstract == x->num_data) {
        FZ_ASSERT(a == s || s == SS_ERR_NUMERIC || a == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED || a == SS_ERR_DIVERGED);
        /* The same model; or, where the two runs parted in the Newton
         * finish, the same certified objective. The finish preconditions its
         * CG by the Hessian's diagonal on badly scaled rows, and the squared
         * hinge's after a step that found no decrease (newton.c, "Badly
         * scaled rows"), only where it can read the rows' squares, which
         * callbacks do not give: there the runs part (a column of values
         * near 1e94: 434 Newton iterations to P = 0.5605 through the
         * descriptor, 2 to 0.6154 through callbacks, both max_iterations; 8
         * rows of 8 features, squared hinge: both converged, P equal to
         * 2e-11, models 1e-6 apart along a flat direction). The stochastic
         * phase must agree. */
        if (a == SS_OK && s == SS_OK) {
          const double *w = ss_svm_get_model(svm), *v = ss_svm_get_model(abstract);
          int same = 1;
          for (int64_t j = 0; j < D; ++j) same = same && fabs(w[j] - v[j]) <= 1e-9 * (1 + fabs(w[j]));
          if (!same) {
            const SsSvmStatistics *st = ss_svm_get_statistics(svm), *sa = ss_svm_get_statistics(abstract);
            FZ_ASSERT(st->num_newton_iterations > 0 || sa->num_newton_iterations > 0);
            if (st->status == SS_SVM_STATUS_CONVERGED && sa->status == SS_SVM_STATUS_CONVERGED)
              FZ_ASSERT(fabs(st->objective - sa->objective) <=
                        2 * ss_svm_get_epsilon(svm) * fmax(fabs(st->objective), fabs(sa->objective)));
          }
        }
      }
    }
    ss_svm_delete(abstract);
    ss_svm_delete(svm);
  }
  fz_problem_free(&p);
  return 0;
}
