/* fuzz_kernel_train.c -- the kernel SVM object (kernel_svm.h,
 * kernel_budget.h) trained on fuzzed small problems, for every kernel
 * solver and every kernel type: kernel parameters (gamma, coef0, degree)
 * anywhere, lambda, nu, eta0, the unregularized bias, the budget and its
 * maintenance strategy, the seed, the iteration count, a second train call
 * (warm continuation) and new data. Checked promises: ss_kernel_init accepts
 * exactly its documented range; a setter returns SS_OK or its documented
 * error and a failing one leaves the value unchanged; train returns a
 * documented status; SS_OK means a finite expansion and bias, at most B
 * support vectors for the budgeted solvers, and finite statistics and
 * scores on the training data (a kernel whose values are finite there).
 *
 * A new kernel solver must be appended to fz_kernel_solvers below: every
 * harness run (and its meson replay test) fails until it is. */
#include "fuzz_common.h"
#include "stochsvm/kernel_svm.h"

static const SsKernelSolver fz_kernel_solvers[] = {SS_KSOLVER_NONE,       SS_KSOLVER_SBP,  SS_KSOLVER_PEGASOS,
                                                   SS_KSOLVER_SDCA,       SS_KSOLVER_PERCEPTRON,
                                                   SS_KSOLVER_BSCA,       SS_KSOLVER_BSGD};
#define FZ_NUM_KERNEL_SOLVERS ((int)(sizeof fz_kernel_solvers / sizeof fz_kernel_solvers[0]))

/* Like fz_check_solver_table, for the kernel object. */
static void fz_check_kernel_solver_table(void)
{
  static int checked = 0;
  if (checked) return;
  checked = 1;
  SsKernel kernel;
  FZ_ASSERT(ss_kernel_init(&kernel, SS_KERNEL_LINEAR, 1.0, 0.0, 1) == SS_OK);
  for (int s = 0; s < 64; ++s) {
    SsKernelSvm *svm = ss_kernel_svm_new_without_data((SsKernelSolver)s, &kernel, 1, 1.0);
    int listed = 0;
    for (int k = 0; k < FZ_NUM_KERNEL_SOLVERS; ++k) listed |= fz_kernel_solvers[k] == (SsKernelSolver)s;
    ss_kernel_svm_delete(svm);
    if ((svm != NULL) != listed) {
      fprintf(stderr, "kernel solver %d is %s by the core but %s fz_kernel_solvers in tests/fuzz/fuzz_kernel_train.c\n",
              s, svm ? "accepted" : "refused", listed ? "listed in" : "missing from");
      abort();
    }
  }
}

static int is_budgeted(SsKernelSolver s) { return s == SS_KSOLVER_BSCA || s == SS_KSOLVER_BSGD; }

/* The documented range of ss_kernel_init (kernel.h). */
static int kernel_valid(SsKernelType type, double gamma, double coef0, int degree)
{
  if (type < SS_KERNEL_LINEAR || type > SS_KERNEL_PRECOMPUTED) return 0;
  if (!isfinite(gamma) || !isfinite(coef0)) return 0; /* finite even where unused */
  if (type == SS_KERNEL_RBF || type == SS_KERNEL_POLYNOMIAL || type == SS_KERNEL_SIGMOID)
    if (!(gamma > 0)) return 0;
  if (type == SS_KERNEL_POLYNOMIAL && (degree < 1 || degree > 64)) return 0;
  return 1;
}

/* The Gram matrix X X^T of a valid problem as a dense n x n data set (the
 * data of a precomputed kernel). */
static SsStatus gram(const FzProblem *p, double *g, SsData *out)
{
  double *row = calloc((size_t)p->d, sizeof(double));
  if (!row) return SS_ERR_ALLOC;
  for (int64_t i = 0; i < p->n; ++i) {
    memset(row, 0, (size_t)p->d * sizeof(double));
    ss_data_accumulate(&p->data, i, row, 1.0);
    for (int64_t j = 0; j < p->n; ++j) g[i * p->n + j] = ss_data_inner_product(&p->data, j, row);
  }
  free(row);
  return ss_data_init_dense(out, SS_DTYPE_FLOAT64, g, p->n, p->n, p->n);
}

/* SS_OK after training: every number of the model is finite. */
static void check_model(SsKernelSvm *svm, const SsData *data, int64_t budget)
{
  const int64_t m = ss_kernel_svm_get_num_support_vectors(svm);
  const double *beta = ss_kernel_svm_get_coefficients(svm);
  FZ_ASSERT(m >= 0);
  FZ_ASSERT(m == 0 || beta != NULL);
  for (int64_t j = 0; j < m; ++j) FZ_ASSERT(isfinite(beta[j]));
  FZ_ASSERT(isfinite(ss_kernel_svm_get_bias(svm)));
  if (budget > 0) FZ_ASSERT(m <= budget);
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  /* budget_limited: the budget rule (driver/run.c) stopped a run whose budget
   * was full, which it never is with B >= n. */
  FZ_ASSERT(st->status == SS_SVM_STATUS_CONVERGED || st->status == SS_SVM_STATUS_MAX_ITERATIONS ||
            (st->status == SS_SVM_STATUS_BUDGET_LIMITED && budget > 0 && budget < data->num_data));
  FZ_ASSERT(st->num_support_vectors == m);
  FZ_ASSERT(isfinite(st->training_error) && st->training_error >= 0 && st->training_error <= 1);
  double *scores = malloc((size_t)data->num_data * sizeof(double));
  if (!scores) return;
  fz_check_scores(ss_kernel_svm_decision_function(svm, data, scores), scores, data->num_data);
  free(scores);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
  FzInput in = {bytes, size};
  fz_check_kernel_solver_table();
  const SsKernelSolver solver = fz_kernel_solvers[fz_range(&in, 0, FZ_NUM_KERNEL_SOLVERS - 1)];
  const SsKernelType type = (SsKernelType)fz_range(&in, -1, 5);
  const double gamma = fz_positive(&in), coef0 = fz_double(&in);
  const int degree = (int)fz_range(&in, -1, 66);

  SsKernel kernel;
  SsStatus ks = ss_kernel_init(&kernel, type, gamma, coef0, degree);
  FZ_ASSERT(ks == SS_OK || ks == SS_ERR_BAD_ARG);
  FZ_ASSERT((ks == SS_OK) == kernel_valid(type, gamma, coef0, degree));
  if (ks != SS_OK) FZ_ASSERT(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0.0, 1) == SS_OK);

  FzProblem p;
  fz_problem_build(&p, &in, 10, 5, 0);
  FZ_ASSERT(p.init_status == SS_OK);
  const int flags = fz_byte(&in);
  if (flags & 1) /* labels all of one class */
    for (int64_t i = 0; i < p.n; ++i) p.labels[i] = 1.0;
  double *g = NULL;
  SsData train_data = p.data;
  if (kernel.type == SS_KERNEL_PRECOMPUTED) {
    g = malloc((size_t)(p.n * p.n) * sizeof(double));
    FZ_ASSERT(g != NULL);
    SsStatus gs = gram(&p, g, &train_data);
    FZ_ASSERT(gs == SS_OK);
  }
  double lambda = fz_positive(&in);
  const SsStatus cs = ss_kernel_svm_check_new(solver, &kernel, &train_data, p.labels, lambda);
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &kernel, &train_data, p.labels, lambda);
  FZ_ASSERT((svm != NULL) == (cs == SS_OK));
  if (!svm) {
    FZ_ASSERT(cs == SS_ERR_BAD_ARG);
    /* the only things that can be wrong here (kernel_svm.h, kernel_budget.h) */
    FZ_ASSERT(!(lambda >= SS_LAMBDA_MIN && lambda <= SS_LAMBDA_MAX) ||
              (is_budgeted(solver) && kernel.type == SS_KERNEL_PRECOMPUTED));
    free(g);
    fz_problem_free(&p);
    return 0;
  }

  /* Setters with fuzzed values: SS_OK stores, an error leaves the value. */
  const double nu = fz_positive(&in), eta0 = fz_positive(&in);
  double before = ss_kernel_svm_get_nu(svm);
  SsStatus s = ss_kernel_svm_set_nu(svm, nu);
  /* nu and eta0 are the SBP's: other solvers refuse them (they would ignore them) */
  FZ_ASSERT(solver == SS_KSOLVER_SBP ? s == SS_OK || s == SS_ERR_BAD_ARG : s == SS_ERR_BAD_STATE);
  FZ_ASSERT(s == SS_OK ? ss_kernel_svm_get_nu(svm) == nu : ss_kernel_svm_get_nu(svm) == before);
  before = ss_kernel_svm_get_eta0(svm);
  s = ss_kernel_svm_set_eta0(svm, eta0);
  FZ_ASSERT(solver == SS_KSOLVER_SBP ? s == SS_OK || s == SS_ERR_BAD_ARG : s == SS_ERR_BAD_STATE);
  FZ_ASSERT(s == SS_OK ? ss_kernel_svm_get_eta0(svm) == eta0 : ss_kernel_svm_get_eta0(svm) == before);
  s = ss_kernel_svm_set_unregularized_bias(svm, flags & 2);
  FZ_ASSERT(s == SS_OK || (s == SS_ERR_BAD_STATE && solver != SS_KSOLVER_SBP));
  int64_t budget = (flags & 4) ? fz_int64(&in) : fz_range(&in, 0, p.n + 2);
  /* The budgeted solvers allocate B + 1 slots of d doubles up front (not
   * min(B, n): merged points can outnumber the examples), so a budget of
   * 10^8 is gigabytes, over the fuzzer's 2 GiB malloc limit: keep budgets
   * at most 4096, or so large (>= 2^62) that the size check refuses them. */
  if (budget > 4096 && budget < ((int64_t)1 << 62)) budget = 1 + budget % 4096;
  int64_t b0 = ss_kernel_svm_get_budget(svm);
  s = ss_kernel_svm_set_budget(svm, budget);
  /* the budget's settings: the budgeted solvers' only */
  FZ_ASSERT(is_budgeted(solver) ? (s == SS_OK) == (budget >= 1) && (s == SS_OK || s == SS_ERR_BAD_ARG)
                                : s == SS_ERR_BAD_STATE);
  FZ_ASSERT(ss_kernel_svm_get_budget(svm) == (s == SS_OK ? budget : b0));
  const SsBudgetMaintenance maintenance = (SsBudgetMaintenance)fz_range(&in, -1, 4);
  SsBudgetMaintenance m0 = ss_kernel_svm_get_budget_maintenance(svm);
  s = ss_kernel_svm_set_budget_maintenance(svm, maintenance);
  FZ_ASSERT(is_budgeted(solver) ? s == SS_OK || s == SS_ERR_BAD_ARG : s == SS_ERR_BAD_STATE);
  FZ_ASSERT(ss_kernel_svm_get_budget_maintenance(svm) == (s == SS_OK ? maintenance : m0));
  if (is_budgeted(solver) && maintenance == SS_BUDGET_MAINTENANCE_MERGE && kernel.type != SS_KERNEL_RBF)
    FZ_ASSERT(s == SS_ERR_BAD_ARG);
  if (flags & 8) {
    double l2 = fz_positive(&in);
    s = ss_kernel_svm_set_lambda(svm, l2);
    FZ_ASSERT((s == SS_OK) == (l2 >= SS_LAMBDA_MIN && l2 <= SS_LAMBDA_MAX));
  }
  if (flags & 64) { /* per-example weights: a copy on SS_OK; SBP refuses any */
    double *c = malloc((size_t)p.n * sizeof(double));
    FZ_ASSERT(c != NULL);
    const int wild = fz_byte(&in) < 64;
    int valid = 1;
    for (int64_t i = 0; i < p.n; ++i) {
      c[i] = wild ? fz_double(&in) : (double)fz_range(&in, 0, 8) / 4.0;
      valid = valid && isfinite(c[i]) && c[i] >= 0;
    }
    s = ss_kernel_svm_set_weights(svm, c);
    FZ_ASSERT(s == (solver == SS_KSOLVER_SBP ? SS_ERR_BAD_STATE : valid ? SS_OK : SS_ERR_BAD_ARG) ||
              s == SS_ERR_ALLOC);
    if (s == SS_OK) FZ_ASSERT(memcmp(ss_kernel_svm_get_weights(svm), c, (size_t)p.n * sizeof(double)) == 0);
    free(c);
  }
  ss_kernel_svm_set_seed(svm, fz_bits(&in, 8));
  FZ_ASSERT(ss_kernel_svm_set_max_num_iterations(svm, 1 + fz_range(&in, 0, 3 * p.n + 30)) == SS_OK);
  FZ_ASSERT(ss_kernel_svm_set_diagnostic_frequency(svm, 1 + fz_range(&in, 0, 2 * p.n)) == SS_OK);
  /* The certified finish on kernel SDCA (kernel_finish.c): off, on (it runs
   * under the cap set above), auto (it does not), or any other value (on). */
  const int finish = (int)fz_range(&in, -1, 3);
  FZ_ASSERT(ss_kernel_svm_set_sdca_finish(svm, finish) == SS_OK);
  FZ_ASSERT(ss_kernel_svm_get_sdca_finish(svm) ==
            (finish == SS_KERNEL_SDCA_FINISH_OFF || finish == SS_KERNEL_SDCA_FINISH_AUTO ? finish
                                                                                        : SS_KERNEL_SDCA_FINISH_ON));

  const int64_t B = is_budgeted(solver) ? ss_kernel_svm_get_budget(svm) : 0;
  for (int round = 0; round < 2; ++round) {
    s = ss_kernel_svm_train(svm);
    if (!(s == SS_OK || s == SS_ERR_BAD_DATA || s == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED || s == SS_ERR_ALLOC))
      fprintf(stderr, "train: %s (solver %d, kernel %d, round %d)\n", ss_status_string(s), (int)solver,
              (int)kernel.type, round);
    FZ_ASSERT(s == SS_OK || s == SS_ERR_BAD_DATA || s == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED ||
              s == SS_ERR_ALLOC);
    if (s == SS_ERR_DIVERGED) FZ_ASSERT(solver == SS_KSOLVER_PEGASOS || solver == SS_KSOLVER_BSGD);
    /* one class (the SBP), or squared norms that overflow */
    if (s == SS_ERR_BAD_DATA) FZ_ASSERT((solver == SS_KSOLVER_SBP && (flags & 2)) || fz_norms_overflow(&p.data));
    if (s != SS_OK) break;
    check_model(svm, &train_data, B);
    if (!(flags & 16)) break;
    if (round == 0 && (flags & 32)) /* new labels, the same data: the state restarts */
      for (int64_t i = 0; i < p.n; ++i) p.labels[i] = -p.labels[i];
    if (round == 0 && (flags & 32)) FZ_ASSERT(ss_kernel_svm_set_data(svm, &train_data, p.labels) == SS_OK);
  }
  ss_kernel_svm_delete(svm);
  free(g);
  fz_problem_free(&p);
  return 0;
}
