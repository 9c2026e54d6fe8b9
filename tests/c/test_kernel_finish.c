/* test_kernel_finish.c -- the kernel SDCA finish (kernel_finish.c): kernel
 * Pegasos, the SBP and the budgeted solvers with B >= n, stopped on their
 * default cap at a large C, hand over to exact kernel SDCA and end with a
 * certified relative duality gap, which this file recomputes by hand from
 * the returned model (P from its scores, D from alpha_i = y_i beta_i); with
 * weights; with the bias (the SBP, BSCA). Also: the mode off gives the run
 * without the finish bit for bit, a cap set by the caller (auto: no finish;
 * on: finish), the SBP on a nu set by the caller and BSGD with B < n keep
 * their own model, the bias-free mode of the pair solver reaches the
 * optimum of the bias-free SDCA, an interrupt during the finish; a further
 * train call's finish starts from the last one's dual state (a kernel row,
 * not a solve), a new lambda from that state scaled, and new weights or a
 * new bias form from zero. */
#include <math.h>
#include <string.h>

#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_budget.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

enum { KN = 60, KD = 3 };

static const double K_C = 1000.0;  /* C = 1 / (lambda n) */
static const double K_EPSILON = 1e-3;

typedef struct FinishFixture {
  double X[KN * KD], y[KN], w[KN];
  SsData data;
  SsKernel kernel;
  double lambda;
} FinishFixture;

static void fixture(FinishFixture *f)
{
  tu_make_blobs(f->X, f->y, KN, KD, 0.4, 47); /* overlapping classes */
  for (int i = 0; i < KN; ++i) f->w[i] = 0.5 + (i % 4) * 0.5;
  ss_data_init_dense(&f->data, SS_DTYPE_FLOAT64, f->X, KN, KD, KD);
  ss_kernel_init(&f->kernel, SS_KERNEL_RBF, 0.8, 0, 1);
  f->lambda = 1.0 / (K_C * KN);
}

static SsKernelSvm *new_run(FinishFixture *f, SsKernelSolver solver, int mode, const double *weights)
{
  SsKernelSvm *svm = ss_kernel_svm_new(solver, &f->kernel, &f->data, f->y, f->lambda);
  if (!svm) return NULL;
  if (ss_kernel_svm_set_epsilon(svm, K_EPSILON) != SS_OK ||
      (mode >= 0 && ss_kernel_svm_set_sdca_finish(svm, mode) != SS_OK) ||
      (weights && ss_kernel_svm_set_weights(svm, weights) != SS_OK)) {
    ss_kernel_svm_delete(svm);
    return NULL;
  }
  return svm;
}

/* P and D of the model by hand: f from the model's scores, alpha_i =
 * y_i beta_i on each support vector's row, ||w||^2 = sum_j beta_j f~(z_j)
 * (f~ without the bias); *box_ok: alpha in [0, c_i C]; *balance: y'alpha / C. */
static void certificate(const SsKernelSvm *svm, FinishFixture *f, const double *weights, double *P,
                        double *D, int *box_ok, double *balance)
{
  double scores[KN], alpha[KN] = {0};
  CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &f->data, scores), SS_OK);
  const int64_t m = ss_kernel_svm_get_num_support_vectors(svm);
  const int64_t *rows = ss_kernel_svm_get_support_indices(svm);
  const double *beta = ss_kernel_svm_get_coefficients(svm), b = ss_kernel_svm_get_bias(svm);
  double norm2 = 0, loss = 0, sum = 0, y_alpha = 0;
  const double C = 1.0 / (f->lambda * KN);
  for (int64_t j = 0; j < m; ++j) {
    REQUIRE(rows[j] >= 0 && rows[j] < KN);
    alpha[rows[j]] += f->y[rows[j]] * beta[j];
    norm2 += beta[j] * (scores[rows[j]] - b);
  }
  *box_ok = 1;
  for (int i = 0; i < KN; ++i) {
    const double c = weights ? weights[i] : 1.0;
    loss += c * fmax(0.0, 1 - f->y[i] * scores[i]);
    if (alpha[i] < -1e-12 * C || alpha[i] > c * C * (1 + 1e-12)) *box_ok = 0;
    sum += alpha[i];
    y_alpha += f->y[i] * alpha[i];
  }
  *P = 0.5 * f->lambda * norm2 + loss / KN;
  *D = f->lambda * (sum - 0.5 * norm2);
  *balance = y_alpha / C;
}

/* The model is within the gap of the optimum, recomputed by hand. */
static void check_gap(const SsKernelSvm *svm, FinishFixture *f, const double *weights, int bias)
{
  const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  double P, D, balance;
  int box_ok;
  certificate(svm, f, weights, &P, &D, &box_ok, &balance);
  CHECK(box_ok);
  if (bias) CHECK(fabs(balance) <= 1e-9 * KN);
  CHECK(fabs(P - st->primal_objective) <= 1e-9 * P);
  CHECK(P - D <= K_EPSILON * D * (1 + 1e-6));
  CHECK(fabs(st->duality_gap - (P - D)) <= 1e-6 * P);
}

/* ... by the finish. */
static void check_certified(const SsKernelSvm *svm, FinishFixture *f, const double *weights, int bias)
{
  CHECK(ss_kernel_svm_get_statistics(svm)->finish_epochs > 0);
  check_gap(svm, f, weights, bias);
}

/* Bias-free coordinate SDCA's dual variables are the finish's: alpha_j =
 * y_j beta_j on the model's support vectors, 0 elsewhere. */
static void check_duals_follow_the_model(const SsKernelSvm *svm, FinishFixture *f)
{
  const double *alpha = ss_kernel_svm_get_dual_variables(svm);
  const int64_t *index = ss_kernel_svm_get_support_indices(svm);
  const double *beta = ss_kernel_svm_get_coefficients(svm);
  const int64_t m = ss_kernel_svm_get_num_support_vectors(svm);
  REQUIRE(alpha && index && beta && m > 0);
  double expected[KN] = {0};
  for (int64_t j = 0; j < m; ++j) expected[index[j]] = f->y[index[j]] * beta[j];
  for (int i = 0; i < KN; ++i) CHECK(fabs(alpha[i] - expected[i]) <= 1e-12 * K_C);
}

/* Pegasos (with and without weights), BSGD and BSCA with B >= n, the SBP,
 * and bias-free (coordinate) SDCA, at their defaults (mode auto, default
 * cap): certified; with the mode off, the run ends on its cap well above
 * the certified objective. */
void test_kernel_finish_certified(void)
{
  static FinishFixture f;
  fixture(&f);
  const SsKernelSolver solvers[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_PEGASOS, SS_KSOLVER_BSGD, SS_KSOLVER_BSCA,
                                    SS_KSOLVER_SBP,     SS_KSOLVER_SDCA};
  const int weighted[] = {0, 1, 1, 1, 0, 1};
  for (size_t a = 0; a < sizeof solvers / sizeof *solvers; ++a) {
    const double *weights = weighted[a] ? f.w : NULL;
    SsKernelSvm *svm = new_run(&f, solvers[a], -1, weights);
    SsKernelSvm *off = new_run(&f, solvers[a], SS_KERNEL_SDCA_FINISH_OFF, weights);
    REQUIRE(svm && off);
    if (solvers[a] == SS_KSOLVER_SBP) {
      CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(off, 1), SS_OK);
    }
    CHECK_EQ_INT(ss_kernel_svm_get_sdca_finish(svm), SS_KERNEL_SDCA_FINISH_AUTO);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    check_certified(svm, &f, weights, ss_kernel_svm_get_unregularized_bias(svm));
    CHECK_EQ_INT(ss_kernel_svm_train(off), SS_OK);
    const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(off);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
    CHECK(st->finish_epochs == 0);
    CHECK(st->primal_objective > (1 + K_EPSILON) * ss_kernel_svm_get_statistics(svm)->primal_objective);
    /* the finish took over before the cap that the run without it ran to
     * (Pegasos, BSGD, BSCA: once their work reached n^2) */
    if (solvers[a] != SS_KSOLVER_SBP) CHECK(ss_kernel_svm_get_statistics(svm)->iteration < st->iteration);
    if (solvers[a] == SS_KSOLVER_SDCA) {
      /* handed over at its first diagnostic (one epoch), not on its cap */
      CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->iteration, ss_kernel_svm_get_num_data(svm));
      check_duals_follow_the_model(svm, &f);
      /* a further call goes straight to the finish, which kept this optimum */
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->status, SS_SVM_STATUS_CONVERGED);
      check_gap(svm, &f, weights, 0);
    }
    ss_kernel_svm_delete(svm);
    ss_kernel_svm_delete(off);
  }
}

/* Off is the old run bit for bit (the same as auto under a cap set by the
 * caller, which never finishes); on finishes under the caller's cap, and
 * (Pegasos) hands over before it, once its work reaches n^2. */
void test_kernel_finish_modes_and_caps(void)
{
  static FinishFixture f;
  fixture(&f);
  const int64_t cap = SS_KERNEL_SVM_DEFAULT_EPOCHS * KN;
  SsKernelSvm *off = new_run(&f, SS_KSOLVER_PEGASOS, SS_KERNEL_SDCA_FINISH_OFF, NULL);
  SsKernelSvm *capped = new_run(&f, SS_KSOLVER_PEGASOS, -1, NULL);
  SsKernelSvm *forced = new_run(&f, SS_KSOLVER_PEGASOS, SS_KERNEL_SDCA_FINISH_ON, NULL);
  REQUIRE(off && capped && forced);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(capped, cap), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(forced, cap), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(off), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(capped), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(forced), SS_OK);
  CHECK(tu_same_kernel_run(off, capped, KN));
  const int64_t m = ss_kernel_svm_get_num_support_vectors(off);
  CHECK_EQ_INT(m, ss_kernel_svm_get_num_support_vectors(capped));
  if (m == ss_kernel_svm_get_num_support_vectors(capped) && m > 0) {
    CHECK(tu_same_bits(ss_kernel_svm_get_coefficients(off), ss_kernel_svm_get_coefficients(capped), m));
  }
  CHECK_EQ_INT(ss_kernel_svm_get_statistics(capped)->status, SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(ss_kernel_svm_get_statistics(capped)->iteration, cap);
  CHECK(ss_kernel_svm_get_statistics(capped)->finish_epochs == 0);
  check_certified(forced, &f, NULL, 0);
  const int64_t ran = ss_kernel_svm_get_statistics(forced)->iteration; /* the run's own count */
  CHECK(ran > 0 && ran < cap);
  /* ... at its first diagnostic whose kernel evaluations reached n^2 */
  CHECK(ss_kernel_svm_get_statistics(forced)->num_kernel_evaluations >= (int64_t)KN * KN);
  /* A further train goes straight to the finish, which kept this optimum. */
  CHECK_EQ_INT(ss_kernel_svm_train(forced), SS_OK);
  check_certified(forced, &f, NULL, 0);
  CHECK_EQ_INT(ss_kernel_svm_get_statistics(forced)->iteration, ran);
  CHECK_EQ_INT(ss_kernel_svm_set_sdca_finish(NULL, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_set_sdca_finish(off, 7), SS_OK); /* any other value: on */
  CHECK_EQ_INT(ss_kernel_svm_get_sdca_finish(off), SS_KERNEL_SDCA_FINISH_ON);
  ss_kernel_svm_delete(off);
  ss_kernel_svm_delete(capped);
  ss_kernel_svm_delete(forced);
}

/* The hand-over at a predicted finish cost (kernel_finish.c, "When";
 * predict_finish_cost in kernel_svm.c), on 1,024 rows with the tests'
 * sample of 128 (4 samples at least): Pegasos, BSGD and BSCA (B = n) whose
 * finish costs less than n^2 hand over sooner than at n^2, and report the
 * prediction, a positive cost below n^2; the finish from zero ends on the
 * same model bit for bit, and the run costs fewer kernel evaluations in
 * all, the samples' solves included. Under the caller's cap (no finish) no
 * sample is solved: the run is the one without the prediction, to the bit. */
void test_kernel_finish_predicted_cost(void)
{
  enum { PN = 1024, PD = 3 };
  static double X[PN * PD], y[PN];
  tu_make_blobs(X, y, PN, PD, 0.4, 61); /* overlapping classes */
  SsData data;
  SsKernel kernel;
  ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, PN, PD, PD);
  ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.8, 0, 1);
  const SsKernelSolver solvers[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_BSGD, SS_KSOLVER_BSCA};
  for (size_t a = 0; a < sizeof solvers / sizeof *solvers; ++a)
    for (int capped = 0; capped < 2; ++capped) {
      SsKernelSvm *svm[2]; /* [0]: predicted, [1]: the n^2 rule alone */
      for (int k = 0; k < 2; ++k) {
        svm[k] = ss_kernel_svm_new(solvers[a], &kernel, &data, y, 1.0 / (30.0 * PN));
        REQUIRE(svm[k]);
        svm[k]->finish_sample_rows = k == 0 ? 128 : -1;
        if (solvers[a] != SS_KSOLVER_PEGASOS) CHECK_EQ_INT(ss_kernel_svm_set_budget(svm[k], PN), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm[k], K_EPSILON), SS_OK);
        if (capped) CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], 3 * PN), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
      }
      const SsKernelSvmStatistics *pred = ss_kernel_svm_get_statistics(svm[0]);
      const SsKernelSvmStatistics *plain = ss_kernel_svm_get_statistics(svm[1]);
      CHECK(plain->exact_cost == 0);
      if (capped) {
        CHECK(pred->exact_cost == 0);
        CHECK(pred->finish_epochs == 0);
        CHECK(tu_same_kernel_run(svm[0], svm[1], PN));
      } else {
        CHECK(pred->exact_cost > 0 && pred->exact_cost < (double)PN * PN);
        CHECK_EQ_INT(pred->status, SS_SVM_STATUS_CONVERGED);
        CHECK_EQ_INT(plain->status, SS_SVM_STATUS_CONVERGED);
        CHECK(pred->iteration < plain->iteration);
        CHECK(pred->num_kernel_evaluations < plain->num_kernel_evaluations);
        /* the same model to the bit (the finish's; the dual variables are the run's own) */
        const int64_t m = ss_kernel_svm_get_num_support_vectors(svm[0]);
        CHECK_EQ_INT(m, ss_kernel_svm_get_num_support_vectors(svm[1]));
        CHECK(m > 0 && m == ss_kernel_svm_get_num_support_vectors(svm[1]) &&
              tu_same_bits(ss_kernel_svm_get_coefficients(svm[0]), ss_kernel_svm_get_coefficients(svm[1]), m));
        CHECK(ss_kernel_svm_get_bias(svm[0]) == ss_kernel_svm_get_bias(svm[1]));
        CHECK(pred->primal_objective == plain->primal_objective);
      }
      ss_kernel_svm_delete(svm[0]);
      ss_kernel_svm_delete(svm[1]);
    }
}

/* Who does not hand over: the SBP on the caller's nu (another problem),
 * BSGD with B < n (the budget would not hold the optimum), the Perceptron. */
void test_kernel_finish_not_applicable(void)
{
  static FinishFixture f;
  fixture(&f);
  SsKernelSvm *sbp = new_run(&f, SS_KSOLVER_SBP, SS_KERNEL_SDCA_FINISH_ON, NULL);
  SsKernelSvm *bsgd = new_run(&f, SS_KSOLVER_BSGD, SS_KERNEL_SDCA_FINISH_ON, NULL);
  SsKernelSvm *perceptron = new_run(&f, SS_KSOLVER_PERCEPTRON, SS_KERNEL_SDCA_FINISH_ON, NULL);
  REQUIRE(sbp && bsgd && perceptron);
  CHECK_EQ_INT(ss_kernel_svm_set_nu(sbp, 0.05), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(sbp, 3 * KN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_budget(bsgd, KN / 2), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(bsgd, 20 * KN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(perceptron, 5 * KN), SS_OK);
  SsKernelSvm *all[] = {sbp, bsgd, perceptron};
  for (int k = 0; k < 3; ++k) {
    CHECK_EQ_INT(ss_kernel_svm_train(all[k]), SS_OK);
    CHECK(ss_kernel_svm_get_statistics(all[k])->finish_epochs == 0);
    CHECK(ss_kernel_svm_get_statistics(all[k])->status != SS_SVM_STATUS_CONVERGED);
  }
  CHECK(ss_kernel_svm_get_num_support_vectors(bsgd) <= KN / 2);
  ss_kernel_svm_delete(sbp);
  ss_kernel_svm_delete(bsgd);
  ss_kernel_svm_delete(perceptron);
}

/* The pair solver's bias-free mode (the finish's solver) and the bias-free
 * coordinate SDCA reach the same optimum, and the SDCA with the bias sits
 * below it (one more free variable). */
void test_kernel_finish_bias_free_mode(void)
{
  static FinishFixture f;
  fixture(&f);
  f.lambda = 1.0 / (10.0 * KN); /* C = 10: the coordinate SDCA converges quickly here */
  SsKernelSvm *pegasos = new_run(&f, SS_KSOLVER_PEGASOS, SS_KERNEL_SDCA_FINISH_ON, NULL);
  SsKernelSvm *sdca = new_run(&f, SS_KSOLVER_SDCA, -1, NULL);
  SsKernelSvm *bias = new_run(&f, SS_KSOLVER_SDCA, -1, NULL);
  REQUIRE(pegasos && sdca && bias);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(pegasos, KN), SS_OK); /* ends on it: finish */
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(sdca, 1e-8), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(sdca, 100000 * KN), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(bias, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_epsilon(bias, 1e-8), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(pegasos), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(sdca), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(bias), SS_OK);
  const SsKernelSvmStatistics *a = ss_kernel_svm_get_statistics(pegasos);
  const SsKernelSvmStatistics *b = ss_kernel_svm_get_statistics(sdca);
  CHECK_EQ_INT(a->status, SS_SVM_STATUS_CONVERGED);
  CHECK_EQ_INT(b->status, SS_SVM_STATUS_CONVERGED);
  CHECK(fabs(a->primal_objective - b->primal_objective) <= 2e-3 * b->primal_objective);
  CHECK(ss_kernel_svm_get_bias(pegasos) == 0);
  CHECK(ss_kernel_svm_get_statistics(bias)->primal_objective <= b->primal_objective * (1 + 1e-6));
  ss_kernel_svm_delete(pegasos);
  ss_kernel_svm_delete(sdca);
  ss_kernel_svm_delete(bias);
}

typedef struct Polls {
  int calls, stop_at; /* stop_at 0: never */
} Polls;

static int count_polls(void *user)
{
  Polls *p = user;
  return ++p->calls == p->stop_at;
}

static SsStatus polled_run(FinishFixture *f, int mode, Polls *polls, SsSvmStatus *status)
{
  SsKernelSvm *svm = new_run(f, SS_KSOLVER_PEGASOS, mode, NULL);
  *status = SS_SVM_STATUS_ERROR;
  if (!svm) return SS_ERR_ALLOC;
  SsStatus result = ss_kernel_svm_set_max_num_iterations(svm, 10 * KN);
  if (result == SS_OK) result = ss_kernel_svm_set_interrupt_function(svm, count_polls, polls);
  if (result == SS_OK) result = ss_kernel_svm_train(svm);
  *status = ss_kernel_svm_get_statistics(svm)->status;
  ss_kernel_svm_delete(svm);
  return result;
}

/* An interrupt during the finish (the first poll after the run's own):
 * status interrupted. */
void test_kernel_finish_interrupted(void)
{
  static FinishFixture f;
  fixture(&f);
  Polls run = {0, 0}, whole = {0, 0};
  SsSvmStatus status = SS_SVM_STATUS_ERROR;
  CHECK_EQ_INT(polled_run(&f, SS_KERNEL_SDCA_FINISH_OFF, &run, &status), SS_OK);
  CHECK_EQ_INT(polled_run(&f, SS_KERNEL_SDCA_FINISH_ON, &whole, &status), SS_OK);
  CHECK_EQ_INT(status, SS_SVM_STATUS_CONVERGED);
  REQUIRE(whole.calls > run.calls); /* the finish polls too */
  Polls stopped = {0, run.calls + 1};
  CHECK_EQ_INT(polled_run(&f, SS_KERNEL_SDCA_FINISH_ON, &stopped, &status), SS_ERR_INTERRUPTED);
  CHECK_EQ_INT(status, SS_SVM_STATUS_INTERRUPTED);
}

/* The kernel evaluations of one train call. */
static int64_t call_evaluations(SsKernelSvm *svm)
{
  const int64_t before = ss_kernel_svm_get_num_kernel_evaluations(svm);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  return ss_kernel_svm_get_num_kernel_evaluations(svm) - before;
}

/* A warm-started train call continues the run and hands over again; that
 * finish starts from the last one's dual state: the same certified optimum
 * for about one kernel row (the first call's finish: a solve). Pegasos and
 * BSCA go straight to it (kernel_finish.c, "When"): the second call is that
 * row. The SBP (on fewer rows than its warm-up's sample, no race) runs its
 * steps again: the finish's share of its calls is the call's less its twin's
 * with the finish off (the same run: test_kernel_finish_modes_and_caps). */
void test_kernel_finish_warm_start(void)
{
  static FinishFixture f;
  fixture(&f);
  const SsKernelSolver solvers[] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_BSCA, SS_KSOLVER_SBP};
  for (size_t a = 0; a < sizeof solvers / sizeof *solvers; ++a) {
    SsKernelSvm *svm = new_run(&f, solvers[a], -1, NULL);
    SsKernelSvm *off = new_run(&f, solvers[a], SS_KERNEL_SDCA_FINISH_OFF, NULL);
    REQUIRE(svm && off);
    const int bias = solvers[a] != SS_KSOLVER_PEGASOS;
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, bias), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(off, bias), SS_OK);
    const int sbp = solvers[a] == SS_KSOLVER_SBP;
    const int64_t first = call_evaluations(svm) - (sbp ? call_evaluations(off) : 0);
    check_certified(svm, &f, NULL, bias);
    const double P1 = ss_kernel_svm_get_statistics(svm)->primal_objective;
    const int64_t iteration = ss_kernel_svm_get_statistics(svm)->iteration;
    const int64_t second = call_evaluations(svm) - (sbp ? call_evaluations(off) : 0);
    if (!sbp) CHECK_EQ_INT(ss_kernel_svm_get_statistics(svm)->iteration, iteration); /* no step */
    check_certified(svm, &f, NULL, bias);
    const double P2 = ss_kernel_svm_get_statistics(svm)->primal_objective;
    CHECK(first > 10 * KN);            /* a solve from zero reads many rows */
    CHECK(second >= 0 && second <= 2 * KN); /* from the optimum: a row or two */
    CHECK(fabs(P2 - P1) <= K_EPSILON * fmin(P1, P2));
    ss_kernel_svm_delete(svm);
    ss_kernel_svm_delete(off);
  }
}

/* What changes the problem: new weights (the state is forgotten: the call
 * is the fresh object's, bit for bit), the bias form (likewise), lambda
 * (the finish starts from the scaled state, and reaches the new optimum,
 * certified, as a fresh object's finish does). */
void test_kernel_finish_problem_changes(void)
{
  static FinishFixture f;
  fixture(&f);
  /* Weights: Pegasos restarts, the finish from zero. */
  SsKernelSvm *svm = new_run(&f, SS_KSOLVER_PEGASOS, -1, NULL);
  SsKernelSvm *fresh = new_run(&f, SS_KSOLVER_PEGASOS, -1, f.w);
  REQUIRE(svm && fresh);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_weights(svm, f.w), SS_OK);
  const int64_t changed = call_evaluations(svm);
  CHECK_EQ_INT(changed, call_evaluations(fresh));
  CHECK(tu_same_kernel_run(svm, fresh, KN));
  check_certified(svm, &f, f.w, 0);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(fresh);

  /* The bias form: BSCA restarts (its budget), the finish from zero. */
  svm = new_run(&f, SS_KSOLVER_BSCA, -1, NULL);
  fresh = new_run(&f, SS_KSOLVER_BSCA, -1, NULL);
  REQUIRE(svm && fresh);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(fresh, 0), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 0), SS_OK);
  CHECK_EQ_INT(call_evaluations(svm), call_evaluations(fresh));
  CHECK(tu_same_kernel_run(svm, fresh, KN));
  check_certified(svm, &f, NULL, 0);
  CHECK(ss_kernel_svm_get_bias(svm) == 0);
  ss_kernel_svm_delete(svm);
  ss_kernel_svm_delete(fresh);

  /* Lambda, down and up (C = 1000 -> 30 -> 1000), with and without the
   * bias: certified at the new lambda, within the tolerance of a fresh
   * object's optimum there. */
  const double Cs[] = {30.0, 1000.0};
  for (int bias = 0; bias <= 1; ++bias) {
    const SsKernelSolver solver = bias ? SS_KSOLVER_BSCA : SS_KSOLVER_PEGASOS;
    fixture(&f);
    svm = new_run(&f, solver, -1, f.w);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, bias), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    for (size_t c = 0; c < sizeof Cs / sizeof *Cs; ++c) {
      f.lambda = 1.0 / (Cs[c] * KN);
      fresh = new_run(&f, solver, -1, f.w);
      REQUIRE(fresh);
      CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(fresh, bias), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_train(fresh), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_lambda(svm, f.lambda), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
      check_gap(svm, &f, f.w, bias); /* (at C = 30, BSCA's own certified stop) */
      const double P = ss_kernel_svm_get_statistics(svm)->primal_objective;
      const double P_fresh = ss_kernel_svm_get_statistics(fresh)->primal_objective;
      CHECK(fabs(P - P_fresh) <= K_EPSILON * fmin(P, P_fresh));
      ss_kernel_svm_delete(fresh);
    }
    ss_kernel_svm_delete(svm);
  }
}
