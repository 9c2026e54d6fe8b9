/* test_primal_finish_hinge.c -- the primal solvers' Newton finish for the
 * hinge and l1 losses (primal_finish.c, newton_hinge.c): SGD, SVMSGD2 and
 * SGD-QN on features of scales 1024 to 1/128 hand over to the smoothing
 * method and end with a certified gap of the loss itself. The certificate
 * is recomputed here from the returned model: every smoothing width mu
 * maps the scores to a feasible dual point alpha_i = -c_i h_mu'(s_i), and
 * the best of their D, searched over the widths, bounds P* from below. Also: the mode off, a cap
 * set by the caller, example weights with a fixed offset, a warm start
 * after the finish and an interrupt during the Newton iterations. */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { HN = 120, HD = 4 };

static const double H_LAMBDA = 1.0 / (1e3 * HN);
static const double H_EPSILON = 1e-4;

/* Columns of scale 1024, 1, 1/128 and 1; the label follows the small one. */
static void make_raw(double *X, double *y) {
  TuRng rng;
  tu_rng_init(&rng, 37);
  const double scale[HD] = {1024.0, 1.0, 1.0 / 128, 1.0};
  for (int i = 0; i < HN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    for (int j = 0; j < HD; ++j) X[i * HD + j] = scale[j] * (tu_rng_uniform(&rng) - 0.5);
    X[i * HD + 2] += scale[2] * (i % 2 ? 0.25 : -0.25);
  }
}

/* The loss's slope at s smoothed over width mu: -y clip((1 - y s)/mu, 0, 1)
 * for the hinge, clip((s - y)/mu, -1, 1) for l1. */
static double smoothed_slope(SsLoss loss, double s, double y, double mu) {
  if (loss == SS_LOSS_HINGE) return -y * fmin(1.0, fmax(0.0, (1 - y * s) / mu));
  return fmin(1.0, fmax(-1.0, (s - y) / mu));
}

/* D of the map alpha_i = -c_i h_mu'(s_i) at scores s: 1/n sum_i alpha_i
 * (y_i - b0) - lambda/2 ||v||^2, v = 1/(lambda n) sum_i alpha_i (x_i, B),
 * b0 the fixed offset (B = 0) or 0. */
static double mapped_dual(const double *X, const double *y, const double *c, SsLoss loss, double B, double b0,
                          const double *s, double mu) {
  double v[HD + 1] = {0}, linear = 0;
  for (int i = 0; i < HN; ++i) {
    const double ci = c ? c[i] : 1.0, alpha = -ci * smoothed_slope(loss, s[i], y[i], mu);
    linear += alpha * (y[i] - b0);
    for (int j = 0; j < HD; ++j) v[j] += alpha * X[i * HD + j] / (H_LAMBDA * HN);
    v[HD] += alpha * B / (H_LAMBDA * HN);
  }
  double v2 = 0;
  for (int j = 0; j <= HD; ++j) v2 += v[j] * v[j];
  return linear / HN - 0.5 * H_LAMBDA * v2;
}

/* P of the model, and the best D of the maps over the widths: the best of
 * mu = 10^(-k/1000), k = 0 ... 13000, then a golden-section search between
 * that width's neighbours (on ill-conditioned data D moves fast with mu). */
static void certificate(const SsSvm *svm, const double *X, const double *y, const double *c, SsLoss loss,
                        double B, double *P, double *D) {
  const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm), b0 = B > 0 ? 0 : b;
  double s[HN], losses = 0;
  for (int i = 0; i < HN; ++i) {
    s[i] = b;
    for (int j = 0; j < HD; ++j) s[i] += w[j] * X[i * HD + j];
    const double ci = c ? c[i] : 1.0;
    losses += ci * (loss == SS_LOSS_HINGE ? fmax(0.0, 1 - y[i] * s[i]) : fabs(s[i] - y[i]));
  }
  double w2 = B > 0 ? (b / B) * (b / B) : 0;
  for (int j = 0; j < HD; ++j) w2 += w[j] * w[j];
  *P = 0.5 * H_LAMBDA * w2 + losses / HN;
  int best = 0;
  *D = -INFINITY;
  for (int k = 0; k <= 13000; ++k) {
    const double value = mapped_dual(X, y, c, loss, B, b0, s, pow(10.0, -k / 1000.0));
    if (value > *D) {
      *D = value;
      best = k;
    }
  }
  double lo = -(best + 1) / 1000.0, hi = -(best - 1) / 1000.0; /* log10 mu */
  const double ratio = 0.5 * (sqrt(5.0) - 1);
  for (int step = 0; step < 100; ++step) {
    const double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
    const double d1 = mapped_dual(X, y, c, loss, B, b0, s, pow(10.0, m1));
    const double d2 = mapped_dual(X, y, c, loss, B, b0, s, pow(10.0, m2));
    *D = fmax(*D, fmax(d1, d2));
    if (d1 > d2) hi = m2; else lo = m1;
  }
}

static SsSvm *new_run(SsData *data, const double *X, const double *y, SsSolver solver, SsLoss loss, int mode) {
  SsSvm *svm = tu_new_dense(solver, data, X, y, HN, HD, H_LAMBDA);
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_epsilon(svm, H_EPSILON) != SS_OK ||
      (mode >= 0 && ss_svm_set_newton_fallback(svm, mode) != SS_OK)) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

static const SsSolver sgd_family[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN};
static const SsLoss kinked_losses[] = {SS_LOSS_HINGE, SS_LOSS_L1};

/* Every solver of the family with the hinge and l1 at the defaults (mode
 * auto, default cap): certified by the hand-made certificate; with the
 * mode off, no Newton iteration and a model further from the optimum. */
void test_primal_finish_hinge_certified(void) {
  static double X[HN * HD], y[HN];
  make_raw(X, y);
  SsData data;
  for (size_t a = 0; a < sizeof sgd_family / sizeof *sgd_family; ++a) {
    for (size_t b = 0; b < sizeof kinked_losses / sizeof *kinked_losses; ++b) {
      const SsLoss loss = kinked_losses[b];
      SsSvm *svm = new_run(&data, X, y, sgd_family[a], loss, -1);
      CHECK(svm != NULL);
      if (!svm) continue;
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
      CHECK(st->num_newton_iterations > 0);
      double P, D;
      certificate(svm, X, y, NULL, loss, 1.0, &P, &D);
      CHECK(fabs(P - st->objective) <= 1e-9 * P);
      CHECK(P - D <= H_EPSILON * fmax(P, D) * (1 + 1e-6));
      CHECK(st->duality_gap <= H_EPSILON * st->objective * (1 + 1e-9));
      ss_svm_delete(svm);

      SsSvm *off = new_run(&data, X, y, sgd_family[a], loss, SS_SVM_NEWTON_FALLBACK_OFF);
      CHECK(off != NULL);
      if (!off) continue;
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(off, 100 * HN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(off), SS_OK);
      CHECK_EQ_INT(ss_svm_get_statistics(off)->num_newton_iterations, 0);
      double P_off, D_off;
      certificate(off, X, y, NULL, loss, 1.0, &P_off, &D_off);
      CHECK(P_off > P * (1 + 1e-4));
      ss_svm_delete(off);
    }
  }
}

/* Example weights and a fixed offset (B = 0, b = 0.25) enter the problem
 * and its certificate. */
void test_primal_finish_hinge_weights_and_offset(void) {
  static double X[HN * HD], y[HN], c[HN];
  make_raw(X, y);
  for (int i = 0; i < HN; ++i) c[i] = 0.5 + i % 3;
  SsData data;
  for (size_t b = 0; b < sizeof kinked_losses / sizeof *kinked_losses; ++b) {
    SsSvm *svm = new_run(&data, X, y, SS_SOLVER_SGD, kinked_losses[b], -1);
    CHECK(svm != NULL);
    if (!svm) continue;
    CHECK_EQ_INT(ss_svm_set_weights(svm, c), SS_OK);
    CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, 0.0), SS_OK);
    CHECK_EQ_INT(ss_svm_set_bias(svm, 0.25), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
    CHECK(st->num_newton_iterations > 0);
    CHECK(ss_svm_get_bias(svm) == 0.25);
    double P, D;
    certificate(svm, X, y, c, kinked_losses[b], 0.0, &P, &D);
    CHECK(fabs(P - st->objective) <= 1e-9 * P);
    CHECK(P - D <= H_EPSILON * fmax(P, D) * (1 + 1e-6));
    ss_svm_delete(svm);
  }
}

/* A cap set by the caller: auto ends on it (no Newton), on finishes. */
void test_primal_finish_hinge_respects_an_explicit_cap(void) {
  static double X[HN * HD], y[HN];
  make_raw(X, y);
  SsData data;
  SsSvm *capped = new_run(&data, X, y, SS_SOLVER_SVMSGD2, SS_LOSS_HINGE, -1);
  SsSvm *forced = new_run(&data, X, y, SS_SOLVER_SVMSGD2, SS_LOSS_HINGE, SS_SVM_NEWTON_FALLBACK_ON);
  CHECK(capped && forced);
  if (capped && forced) {
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(capped, 5 * HN), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(forced, 5 * HN), SS_OK);
    CHECK_EQ_INT(ss_svm_train(capped), SS_OK);
    CHECK_EQ_INT(ss_svm_get_statistics(capped)->status, SS_SVM_STATUS_MAX_ITERATIONS);
    CHECK_EQ_INT(ss_svm_get_statistics(capped)->num_newton_iterations, 0);
    CHECK_EQ_INT(ss_svm_get_statistics(capped)->iteration, 5 * HN);
    CHECK_EQ_INT(ss_svm_train(forced), SS_OK);
    CHECK_EQ_INT(ss_svm_get_statistics(forced)->status, SS_SVM_STATUS_CONVERGED);
    CHECK(ss_svm_get_statistics(forced)->num_newton_iterations > 0);
  }
  ss_svm_delete(capped);
  ss_svm_delete(forced);
}

/* A warm start after a certified finish: the schedule continues from
 * Newton's model; the run ends certified again, no worse. */
void test_primal_finish_hinge_warm_start(void) {
  static double X[HN * HD], y[HN];
  make_raw(X, y);
  SsData data;
  for (size_t a = 0; a < sizeof sgd_family / sizeof *sgd_family; ++a) {
    SsSvm *svm = new_run(&data, X, y, sgd_family[a], SS_LOSS_HINGE, -1);
    CHECK(svm != NULL);
    if (!svm) continue;
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const double first = ss_svm_get_statistics(svm)->objective;
    const int64_t t = ss_svm_get_iteration_number(svm);
    CHECK(ss_svm_get_statistics(svm)->num_newton_iterations > 0);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK(ss_svm_get_iteration_number(svm) > t);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
    double P, D;
    certificate(svm, X, y, NULL, SS_LOSS_HINGE, 1.0, &P, &D);
    CHECK(P - D <= H_EPSILON * fmax(P, D) * (1 + 1e-6));
    CHECK(P <= first * (1 + 2 * H_EPSILON));
    ss_svm_delete(svm);
  }
}

typedef struct {
  int calls, stop_at;
} Interrupt;

static int interrupt_at(void *user) {
  Interrupt *it = user;
  return ++it->calls == it->stop_at;
}

/* The interrupt callback is polled at every Newton iteration. */
void test_primal_finish_hinge_interrupted(void) {
  static double X[HN * HD], y[HN];
  make_raw(X, y);
  SsData data;
  Interrupt count = {0, -1};
  SsSvm *svm = new_run(&data, X, y, SS_SOLVER_SGD, SS_LOSS_HINGE, -1);
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, interrupt_at, &count), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const int64_t newton = ss_svm_get_statistics(svm)->num_newton_iterations;
  CHECK(newton > 2);
  ss_svm_delete(svm);

  /* The same run, stopped at the poll of its last Newton iteration. */
  Interrupt stop = {0, count.calls - 1};
  svm = new_run(&data, X, y, SS_SOLVER_SGD, SS_LOSS_HINGE, -1);
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, interrupt_at, &stop), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
  CHECK(st->num_newton_iterations > 0 && st->num_newton_iterations < newton);
  CHECK(isfinite(st->objective));
  ss_svm_delete(svm);
}
