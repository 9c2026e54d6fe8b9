/* fuzz_setters.c -- every setter of SsSvm with arbitrary values, in any
 * order, interleaved with getters, set_data, callbacks and training, for
 * every solver. Checked promises (svm.h): a setter that fails leaves the
 * value unchanged, one that succeeds stores it; training returns a
 * documented status and, on SS_OK, a finite model. Training runs are capped
 * at FZ_MAX_ITERATIONS so that a fuzzed iteration count cannot hang the run. */
#include "fuzz_common.h"

#include <stdbool.h>

#define FZ_MAX_ITERATIONS 4096
#define FZ_MAX_OPS 48

typedef struct FzCallbacks {
  int diagnostics_left; /* the diagnostic callback stops training when it reaches 0 */
  int polls_left;
} FzCallbacks;

static int on_diagnostic(const SsSvm *svm, void *user)
{
  FzCallbacks *cb = user;
  /* Any getter may be called from the callback. */
  (void)ss_svm_get_statistics(svm)->objective;
  (void)ss_svm_get_model(svm)[0];
  (void)ss_svm_get_iteration_number(svm);
  return --cb->diagnostics_left < 0;
}

static int on_poll(void *user)
{
  FzCallbacks *cb = user;
  return --cb->polls_left < 0;
}

/* A vector of k values from the input (NULL sometimes). */
static double *fz_vector(FzInput *in, int64_t k, int nullable)
{
  if (nullable && fz_byte(in) < 16) return NULL;
  double *v = malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
  int wild = fz_byte(in) < 64;
  for (int64_t i = 0; i < k; ++i) v[i] = wild ? fz_double(in) : (double)((int)fz_range(in, 0, 8) - 4) / 4.0;
  return v;
}

static void fz_train(SsSvm *svm)
{
  if (ss_svm_get_max_num_iterations(svm) > FZ_MAX_ITERATIONS)
    FZ_ASSERT(ss_svm_set_max_num_iterations(svm, FZ_MAX_ITERATIONS) == SS_OK);
  SsStatus s = fz_svm_train(svm);
  FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_DATA || s == SS_ERR_BAD_STATE || s == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED ||
            s == SS_ERR_INTERRUPTED || fz_size_refused(svm, s));
  if (s == SS_OK) fz_check_finite_model(svm);
  if (s == SS_ERR_BAD_STATE) /* no data, or no room for the cap */
    FZ_ASSERT(ss_svm_get_num_data(svm) == 0 ||
              ss_svm_get_iteration_number(svm) > INT64_MAX - ss_svm_get_max_num_iterations(svm));
  if (s == SS_ERR_NUMERIC) FZ_ASSERT(ss_svm_get_statistics(svm)->status == SS_SVM_STATUS_ERROR);
  if (s == SS_ERR_DIVERGED) FZ_ASSERT(ss_svm_get_statistics(svm)->status == SS_SVM_STATUS_DIVERGED);
}

/* Setter of a double parameter: on error the getter still reads `before`. */
#define FZ_SET_DOUBLE(svm, setter, getter, value)                      \
  do {                                                                 \
    double before_ = getter(svm), v_ = (value);                        \
    SsStatus s_ = setter(svm, v_);                                     \
    if (s_ == SS_OK) FZ_ASSERT(getter(svm) == v_);                     \
    else FZ_ASSERT(memcmp(&before_, &(double){getter(svm)}, sizeof(double)) == 0); \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
  FzInput in = {bytes, size};
  fz_check_solver_table();
  const SsSolver solver = fz_solvers[fz_range(&in, 0, FZ_NUM_SOLVERS - 1)];
  FzProblem p, q;
  fz_problem_build(&p, &in, 8, 4, 0);
  memset(&q, 0, sizeof q);
  FZ_ASSERT(p.init_status == SS_OK);
  SsSvm *svm = fz_byte(&in) < 32 ? ss_svm_new_without_data(solver, p.d, 0.1)
                                 : ss_svm_new(solver, &p.data, p.labels, fz_positive(&in));
  if (!svm) {
    fz_problem_free(&p);
    return 0;
  }
  FzCallbacks cb = {0, 0};
  SsLossFunctions functions;

  for (int op = 0; op < FZ_MAX_OPS && in.size > 0; ++op) {
    const int64_t n = ss_svm_get_num_data(svm), d = ss_svm_get_dimension(svm);
    switch (fz_byte(&in) % 25) {
      case 0: FZ_SET_DOUBLE(svm, ss_svm_set_lambda, ss_svm_get_lambda, fz_double(&in)); break;
      case 1: FZ_SET_DOUBLE(svm, ss_svm_set_epsilon, ss_svm_get_epsilon, fz_double(&in)); break;
      case 2: {
        int64_t before = ss_svm_get_max_num_iterations(svm), v = fz_int64(&in);
        if (ss_svm_set_max_num_iterations(svm, v) == SS_OK) FZ_ASSERT(ss_svm_get_max_num_iterations(svm) == v);
        else FZ_ASSERT(ss_svm_get_max_num_iterations(svm) == before);
        break;
      }
      case 3: {
        int64_t before = ss_svm_get_diagnostic_frequency(svm), v = fz_int64(&in);
        if (ss_svm_set_diagnostic_frequency(svm, v) == SS_OK) /* 0: the default schedule, whose getter says n */
          FZ_ASSERT(ss_svm_get_diagnostic_frequency(svm) == (v > 0 ? v : ss_svm_get_num_data(svm)));
        else FZ_ASSERT(ss_svm_get_diagnostic_frequency(svm) == before);
        break;
      }
      case 4: FZ_SET_DOUBLE(svm, ss_svm_set_bias_multiplier, ss_svm_get_bias_multiplier, fz_double(&in)); break;
      case 5: FZ_SET_DOUBLE(svm, ss_svm_set_bias_learning_rate, ss_svm_get_bias_learning_rate, fz_double(&in)); break;
      case 6: FZ_SET_DOUBLE(svm, ss_svm_set_t0, ss_svm_get_t0, fz_double(&in)); break;
      case 7: {
        /* A solver's own knob: refused (with a last error) by the other solvers. */
        const bool applies = solver == SS_SOLVER_SGD || solver == SS_SOLVER_SVMSGD2 || solver == SS_SOLVER_SGDQN;
        FZ_ASSERT(ss_svm_unset_t0(svm) == (applies ? SS_OK : SS_ERR_BAD_STATE));
        FZ_ASSERT(applies == (ss_svm_get_last_error(svm)[0] == 0));
        break;
      }
      case 8: {
        SsLoss before = ss_svm_get_loss(svm);
        SsLoss v = (SsLoss)(fz_byte(&in) < 200 ? fz_range(&in, 0, 5) : (int)fz_bits(&in, 4));
        if (ss_svm_set_loss(svm, v) == SS_OK) FZ_ASSERT(ss_svm_get_loss(svm) == v);
        else FZ_ASSERT(ss_svm_get_loss(svm) == before);
        break;
      }
      case 9: {
        /* A custom loss: a built-in one's functions, some of them removed. */
        if (ss_loss_functions(fz_losses[fz_range(&in, 0, FZ_NUM_LOSSES - 1)], &functions) != SS_OK) break;
        int drop = fz_byte(&in);
        if (drop & 1) functions.value = NULL;
        if (drop & 2) functions.dual_update = NULL;
        if (drop & 4) functions.binary_labels = !functions.binary_labels;
        if (drop & 8) functions.conjugate = NULL;
        SsStatus s = ss_svm_set_loss_functions(svm, drop & 16 ? NULL : &functions);
        if (s == SS_OK) FZ_ASSERT(ss_svm_get_loss(svm) == SS_LOSS_CUSTOM);
        break;
      }
      case 10: {
        double *alpha = fz_vector(&in, n, 0);
        SsStatus s = ss_svm_set_dual_variables(svm, alpha);
        FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_ARG || s == SS_ERR_BAD_STATE);
        if (s == SS_OK) FZ_ASSERT(memcmp(ss_svm_get_dual_variables(svm), alpha, (size_t)n * sizeof(double)) == 0);
        free(alpha);
        break;
      }
      case 11:
        FZ_ASSERT(ss_svm_set_shrinking(svm, (int)fz_bits(&in, 4)) ==
                  (solver == SS_SOLVER_SDCA ? SS_OK : SS_ERR_BAD_STATE));
        break;
      case 12: {
        double *c = fz_vector(&in, n, 1);
        SsStatus s = ss_svm_set_weights(svm, c);
        FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_ARG || s == SS_ERR_BAD_STATE);
        if (s == SS_OK) FZ_ASSERT(c ? memcmp(ss_svm_get_weights(svm), c, (size_t)n * sizeof(double)) == 0
                                    : ss_svm_get_weights(svm) == NULL);
        free(c);
        break;
      }
      case 13: {
        double *w = fz_vector(&in, d, 1);
        SsStatus s = ss_svm_set_model(svm, w);
        FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_ARG || s == SS_ERR_BAD_STATE);
        if (s == SS_OK) FZ_ASSERT(memcmp(ss_svm_get_model(svm), w, (size_t)d * sizeof(double)) == 0);
        free(w);
        break;
      }
      case 14: {
        double before = ss_svm_get_bias(svm), v = fz_double(&in);
        SsStatus s = ss_svm_set_bias(svm, v);
        if (s == SS_OK) FZ_ASSERT(ss_svm_get_bias(svm) == v);
        else FZ_ASSERT(memcmp(&before, &(double){ss_svm_get_bias(svm)}, sizeof(double)) == 0);
        break;
      }
      case 15: {
        int64_t before = ss_svm_get_iteration_number(svm), v = fz_int64(&in);
        if (ss_svm_set_iteration_number(svm, v) == SS_OK) FZ_ASSERT(ss_svm_get_iteration_number(svm) == v);
        else FZ_ASSERT(ss_svm_get_iteration_number(svm) == before);
        break;
      }
      case 16: {
        uint64_t v = fz_bits(&in, 8);
        FZ_ASSERT(ss_svm_set_seed(svm, v) == SS_OK && ss_svm_get_seed(svm) == v);
        break;
      }
      case 17: {
        /* New data: same dimension (accepted) or another one (refused). */
        fz_problem_free(&q);
        fz_problem_build(&q, &in, 8, 4, 0);
        SsStatus s = ss_svm_set_data(svm, &q.data, q.labels);
        FZ_ASSERT((s == SS_OK) == (q.d == d));
        if (s == SS_OK) {
          fz_problem_free(&p);
          p = q; /* the object borrows q's arrays now */
          memset(&q, 0, sizeof q);
          FZ_ASSERT(ss_svm_get_statistics(svm)->status == SS_SVM_STATUS_UNTRAINED);
        }
        break;
      }
      case 18:
        cb.diagnostics_left = fz_range(&in, 0, 8);
        ss_svm_set_diagnostic_function(svm, fz_byte(&in) & 1 ? on_diagnostic : NULL, &cb);
        break;
      case 19:
        cb.polls_left = fz_range(&in, 0, 2);
        ss_svm_set_interrupt_function(svm, fz_byte(&in) & 1 ? on_poll : NULL, &cb);
        break;
      case 20: case 21: fz_train(svm); break;
      case 22: {
        /* The Newton finish's mode (off, on, auto; any other value is on):
         * every linear solver's, refused (with a last error) by none. */
        const int v = (int)fz_bits(&in, 4);
        const bool applies = solver != SS_SOLVER_NONE;
        FZ_ASSERT(ss_svm_set_newton_fallback(svm, v) == (applies ? SS_OK : SS_ERR_BAD_STATE));
        FZ_ASSERT((ss_svm_get_newton_fallback(svm) != SS_SVM_NEWTON_FALLBACK_OFF) ==
                  (applies && v != SS_SVM_NEWTON_FALLBACK_OFF));
        break;
      }
      default: {
        /* Every getter. */
        (void)ss_svm_get_solver(svm);
        (void)ss_svm_get_t0(svm);
        (void)ss_svm_get_shrinking(svm);
        (void)ss_svm_get_num_shrunk(svm);
        (void)ss_svm_get_newton_fallback(svm);
        (void)ss_svm_get_statistics(svm)->num_newton_iterations;
        const double *s = ss_svm_get_scores(svm);
        if (s && n > 0) (void)s[n - 1];
        const double *a = ss_svm_get_dual_variables(svm);
        if (a) (void)a[n - 1];
        (void)ss_svm_get_model(svm)[d - 1];
        break;
      }
    }
  }
  ss_svm_delete(svm);
  fz_problem_free(&q);
  fz_problem_free(&p);
  return 0;
}
