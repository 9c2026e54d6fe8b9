/* test_primal_finish.c -- the primal solvers' Newton finish
 * (primal_finish.c): SGD, SVMSGD2, SGD-QN, RES and LRES with a smooth loss,
 * on features of scales 1024 to 1/128 where their steps stall, hand over to
 * newton.c and end with a certified gap. The certificate is recomputed here
 * from the returned model with the conjugates written out by hand. Also:
 * the mode off (the run ends on its own, no Newton), a cap set by the
 * caller (auto: no Newton; on: Newton), a warm start after the finish, and
 * an interrupt during the Newton iterations.
 *
 * The hinge and l1 losses (SGD, SVMSGD2, SGD-QN; newton_hinge.c) finish by
 * Newton's method on the smoothed loss, certified by the loss's own gap.
 * Their certificate is recomputed here from the returned model: every
 * smoothing width mu maps the scores to a feasible dual point alpha_i =
 * -c_i h_mu'(s_i), and the best of their D over all widths (found exactly)
 * bounds P* from below. Also with example weights and a fixed offset, and
 * (with SDCA's fallback) never worse than the model handed over. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { FN = 120, FD = 4 };

static const double F_LAMBDA = 1.0 / (1e3 * FN);
static const double F_EPSILON = 1e-4;

/* Columns of scale 1024, 1, 1/128 and 1; the label follows the small one. */
static void make_raw(double *X, double *y) {
  TuRng rng;
  tu_rng_init(&rng, 31);
  const double scale[FD] = {1024.0, 1.0, 1.0 / 128, 1.0};
  for (int i = 0; i < FN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    for (int j = 0; j < FD; ++j) X[i * FD + j] = scale[j] * (tu_rng_uniform(&rng) - 0.5);
    X[i * FD + 2] += scale[2] * (i % 2 ? 0.25 : -0.25);
  }
}

/* P of the model and D of the map alpha_i = -loss'(s_i), by hand (B = 1). */
static void certificate(const SsSvm *svm, const double *X, const double *y, SsLoss loss, double *P, double *D) {
  const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm);
  double v[FD + 1] = {0}, losses = 0, conjugates = 0;
  for (int i = 0; i < FN; ++i) {
    double s = b;
    for (int j = 0; j < FD; ++j) s += w[j] * X[i * FD + j];
    double alpha;
    if (loss == SS_LOSS_HINGE2) {
      const double m = fmax(0.0, 1 - y[i] * s);
      losses += m * m;
      alpha = 2 * y[i] * m;
      conjugates += m * m - 2 * m; /* beta^2/4 - beta, beta = 2 m */
    } else if (loss == SS_LOSS_LOGISTIC) {
      const double z = y[i] * s, beta = 1 / (1 + exp(z));
      losses += z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
      alpha = y[i] * beta;
      conjugates += (beta > 0 ? beta * log(beta) : 0) + (beta < 1 ? (1 - beta) * log1p(-beta) : 0);
    } else { /* l2: (y - s)^2 */
      losses += (y[i] - s) * (y[i] - s);
      alpha = 2 * (y[i] - s);
      conjugates += alpha * alpha / 4 - alpha * y[i];
    }
    for (int j = 0; j < FD; ++j) v[j] += alpha * X[i * FD + j] / (F_LAMBDA * FN);
    v[FD] += alpha / (F_LAMBDA * FN);
  }
  double w2 = b * b, v2 = 0;
  for (int j = 0; j < FD; ++j) w2 += w[j] * w[j];
  for (int j = 0; j <= FD; ++j) v2 += v[j] * v[j];
  *P = 0.5 * F_LAMBDA * w2 + losses / FN;
  *D = -0.5 * F_LAMBDA * v2 - conjugates / FN;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, z = *(const double *)b;
  return (x > z) - (x < z);
}

/* P of the model (hinge or l1), and the best D over every smoothing width
 * mu of the maps alpha_i = -c_i h_mu'(s_i) = -c_i dir_i min(1, q_i / mu),
 * with q_i the distance past the kink (1 - y_i s_i for the hinge, where
 * q_i <= 0 gives alpha_i = 0; |s_i - y_i| for l1) and dir_i the loss's
 * slope beyond it (-y_i; sign(s_i - y_i)):
 *
 *     D = 1/n sum_i alpha_i (y_i - b0) - lambda/2 ||v||^2,
 *     v = 1/(lambda n) sum_i alpha_i (x_i, B),
 *
 * b0 the fixed offset (B = 0) or 0. Between two consecutive q_i the band
 * {q_i < mu} is fixed and alpha is affine in t = 1/mu, so D is a concave
 * quadratic in t, maximised exactly on each interval. */
static void hinge_certificate(const SsSvm *svm, const double *X, const double *y, const double *c, SsLoss loss,
                              double B, double *P, double *D) {
  const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm), b0 = B > 0 ? 0 : b;
  const bool hinge = loss == SS_LOSS_HINGE;
  double q[FN], dir[FN], cuts[FN + 2], losses = 0;
  int num_cuts = 0;
  cuts[num_cuts++] = 0;
  for (int i = 0; i < FN; ++i) {
    double s = b;
    for (int j = 0; j < FD; ++j) s += w[j] * X[i * FD + j];
    q[i] = hinge ? 1 - y[i] * s : fabs(s - y[i]);
    dir[i] = hinge ? -y[i] : (s < y[i] ? -1.0 : 1.0);
    losses += (c ? c[i] : 1.0) * fmax(0.0, q[i]);
    if (q[i] > 0) cuts[num_cuts++] = q[i];
  }
  cuts[num_cuts++] = INFINITY;
  qsort(cuts, (size_t)num_cuts, sizeof *cuts, by_value);
  double w2 = B > 0 ? (b / B) * (b / B) : 0;
  for (int j = 0; j < FD; ++j) w2 += w[j] * w[j];
  *P = 0.5 * F_LAMBDA * w2 + losses / FN;
  *D = -INFINITY;
  const double scale = 1.0 / (F_LAMBDA * FN);
  for (int k = 0; k + 1 < num_cuts; ++k) {
    const double lo = cuts[k], hi = cuts[k + 1];
    if (!(hi > lo)) continue;
    const double mid = isfinite(hi) ? 0.5 * (lo + hi) : 2 * lo + 1;
    double L0 = 0, L1 = 0, v0[FD + 1] = {0}, v1[FD + 1] = {0};
    for (int i = 0; i < FN; ++i) {
      if (hinge && q[i] <= 0) continue;
      const double ci = c ? c[i] : 1.0;
      const bool band = q[i] < mid; /* alpha_i = a t in the band, a beyond it */
      const double a = band ? -ci * dir[i] * q[i] : -ci * dir[i];
      double *v = band ? v1 : v0;
      *(band ? &L1 : &L0) += a * (y[i] - b0) / FN;
      for (int j = 0; j < FD; ++j) v[j] += a * X[i * FD + j] * scale;
      v[FD] += a * B * scale;
    }
    double v11 = 0, v01 = 0;
    for (int j = 0; j <= FD; ++j) {
      v11 += v1[j] * v1[j];
      v01 += v0[j] * v1[j];
    }
    const double t_lo = isfinite(hi) ? 1 / hi : 0, t_hi = lo > 0 ? 1 / lo : 1e15;
    const double slope = L1 - F_LAMBDA * v01, curvature = F_LAMBDA * v11;
    double t = curvature > 0 ? slope / curvature : (slope > 0 ? t_hi : t_lo);
    t = fmin(t_hi, fmax(t_lo, t));
    double v2 = 0;
    for (int j = 0; j <= FD; ++j) v2 += (v0[j] + t * v1[j]) * (v0[j] + t * v1[j]);
    *D = fmax(*D, L0 + t * L1 - 0.5 * F_LAMBDA * v2);
  }
}

static SsSvm *new_run(SsData *data, const double *X, const double *y, SsSolver solver, SsLoss loss, int mode) {
  SsSvm *svm = tu_new_dense(solver, data, X, y, FN, FD, F_LAMBDA);
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_epsilon(svm, F_EPSILON) != SS_OK ||
      (mode >= 0 && ss_svm_set_newton_fallback(svm, mode) != SS_OK)) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

static const SsSolver primal_solvers[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN, SS_SOLVER_RES,
                                          SS_SOLVER_LRES};
static const SsLoss smooth_losses[] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC, SS_LOSS_L2};
/* (the solvers that take the hinge and l1: the first three above) */
static const SsSolver sgd_family[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN};
static const SsLoss kinked_losses[] = {SS_LOSS_HINGE, SS_LOSS_L1};

/* Every solver and smooth loss at the defaults (mode auto, default cap):
 * certified by the hand-made certificate; with the mode off, no Newton and
 * (SGD, the plain schedule) far above after 100 epochs. */
void test_primal_finish_certified(void) {
  static double X[FN * FD], y[FN];
  make_raw(X, y);
  SsData data;
  for (size_t a = 0; a < sizeof primal_solvers / sizeof *primal_solvers; ++a) {
    for (size_t b = 0; b < sizeof smooth_losses / sizeof *smooth_losses; ++b) {
      SsSvm *svm = new_run(&data, X, y, primal_solvers[a], smooth_losses[b], -1);
      CHECK(svm != NULL);
      if (!svm) continue;
      CHECK_EQ_INT(ss_svm_get_newton_fallback(svm), SS_SVM_NEWTON_FALLBACK_AUTO);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
      CHECK(st->num_newton_iterations > 0);
      double P, D;
      certificate(svm, X, y, smooth_losses[b], &P, &D);
      CHECK(fabs(P - st->objective) <= 1e-9 * P);
      CHECK(P - D <= F_EPSILON * fmax(P, D) * (1 + 1e-6));
      CHECK(fabs(st->duality_gap - (P - D)) <= 1e-6 * P);
      ss_svm_delete(svm);

      /* (100 epochs, not the default cap of 10/lambda iterations: quick
       * under ASan; off is off under any cap) */
      SsSvm *off = new_run(&data, X, y, primal_solvers[a], smooth_losses[b], SS_SVM_NEWTON_FALLBACK_OFF);
      CHECK(off != NULL);
      if (!off) continue;
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(off, 100 * FN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(off), SS_OK);
      st = ss_svm_get_statistics(off);
      CHECK_EQ_INT(st->num_newton_iterations, 0);
      double P_off, D_off;
      certificate(off, X, y, smooth_losses[b], &P_off, &D_off);
      if (primal_solvers[a] == SS_SOLVER_SGD) {
        CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
        CHECK(P_off > 1.05 * P);
      }
      ss_svm_delete(off);
    }
  }
}

/* A cap set by the caller (squared hinge, hinge): auto ends on it (no Newton: the cheap run asked
 * for), on finishes anyway. */
void test_primal_finish_respects_an_explicit_cap(void) {
  static double X[FN * FD], y[FN];
  make_raw(X, y);
  SsData data;
  for (int hinge = 0; hinge <= 1; ++hinge) {
    const SsLoss loss = hinge ? SS_LOSS_HINGE : SS_LOSS_HINGE2;
    SsSvm *capped = new_run(&data, X, y, SS_SOLVER_SGD, loss, -1);
    SsSvm *forced = new_run(&data, X, y, SS_SOLVER_SGD, loss, SS_SVM_NEWTON_FALLBACK_ON);
    CHECK(capped && forced);
    if (capped && forced) {
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(capped, 5 * FN), SS_OK);
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(forced, 5 * FN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(capped), SS_OK);
      CHECK_EQ_INT(ss_svm_get_statistics(capped)->status, SS_SVM_STATUS_MAX_ITERATIONS);
      CHECK_EQ_INT(ss_svm_get_statistics(capped)->num_newton_iterations, 0);
      CHECK_EQ_INT(ss_svm_get_statistics(capped)->iteration, 5 * FN);
      CHECK_EQ_INT(ss_svm_train(forced), SS_OK);
      CHECK_EQ_INT(ss_svm_get_statistics(forced)->status, SS_SVM_STATUS_CONVERGED);
      CHECK(ss_svm_get_statistics(forced)->num_newton_iterations > 0);
      CHECK_EQ_INT(ss_svm_get_newton_fallback(forced), SS_SVM_NEWTON_FALLBACK_ON);
    }
    ss_svm_delete(capped);
    ss_svm_delete(forced);
  }
}

/* A warm start after a certified finish: the schedule's t, SGD-QN's
 * diagonal and RES's curvature kept; the run neither fails nor diverges,
 * and ends certified again (by its window or another finish). The logistic
 * loss for every solver, the hinge for SGD, SVMSGD2 and SGD-QN (whose
 * certificate is checked by hand). */
void test_primal_finish_warm_start(void) {
  static double X[FN * FD], y[FN];
  make_raw(X, y);
  SsData data;
  for (int hinge = 0; hinge <= 1; ++hinge) {
    const SsLoss loss = hinge ? SS_LOSS_HINGE : SS_LOSS_LOGISTIC;
    const size_t num_solvers = hinge ? sizeof sgd_family / sizeof *sgd_family
                                     : sizeof primal_solvers / sizeof *primal_solvers;
    for (size_t a = 0; a < num_solvers; ++a) {
      SsSvm *svm = new_run(&data, X, y, hinge ? sgd_family[a] : primal_solvers[a], loss, -1);
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
      if (hinge) {
        hinge_certificate(svm, X, y, NULL, loss, 1.0, &P, &D);
        CHECK(P - D <= F_EPSILON * fmax(P, D) * (1 + 1e-6));
      } else {
        certificate(svm, X, y, loss, &P, &D);
      }
      CHECK(isfinite(P) && P <= first * (1 + 1e-2));
      ss_svm_delete(svm);
    }
  }
}

/* Every solver of the family with the hinge and l1 at the defaults (mode
 * auto, default cap): certified by the hand-made certificate; with the
 * mode off, no Newton iteration and a model further from the optimum. */
void test_primal_finish_hinge_certified(void) {
  static double X[FN * FD], y[FN];
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
      hinge_certificate(svm, X, y, NULL, loss, 1.0, &P, &D);
      CHECK(fabs(P - st->objective) <= 1e-9 * P);
      CHECK(P - D <= F_EPSILON * fmax(P, D) * (1 + 1e-6));
      CHECK(st->duality_gap <= F_EPSILON * st->objective * (1 + 1e-9));
      ss_svm_delete(svm);

      SsSvm *off = new_run(&data, X, y, sgd_family[a], loss, SS_SVM_NEWTON_FALLBACK_OFF);
      CHECK(off != NULL);
      if (!off) continue;
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(off, 100 * FN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(off), SS_OK);
      CHECK_EQ_INT(ss_svm_get_statistics(off)->num_newton_iterations, 0);
      double P_off, D_off;
      hinge_certificate(off, X, y, NULL, loss, 1.0, &P_off, &D_off);
      CHECK(P_off > P * (1 + 1e-4));
      ss_svm_delete(off);
    }
  }
}

/* P of a model of the README's six points (B = 1) under @p loss, by hand. */
static double six_points_objective(const SsSvm *svm, const double *X, const double *y, SsLoss loss, double lambda) {
  const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm);
  double losses = 0;
  for (int i = 0; i < 6; ++i) {
    const double z = y[i] * (w[0] * X[2 * i] + w[1] * X[2 * i + 1] + b), m = fmax(0.0, 1 - z);
    losses += loss == SS_LOSS_HINGE ? m : loss == SS_LOSS_HINGE2 ? m * m : (z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z)));
  }
  return 0.5 * lambda * (w[0] * w[0] + w[1] * w[1] + b * b) + losses / 6;
}

/* The hinge finish never ends worse than the model it was handed, nor than
 * w~ = 0 (P = 1): on the README's six points times 1e153 (rows of squared
 * norm up to 2.5e307, which the core accepts) its Hessian products
 * overflow, and it returned P = 2.2e271 (SGD, handed a model at 6e302 by
 * a first step of 1/2) and 1.005 (SDCA, handed 1). Times 1e152 the finish
 * reaches the optimum, P* = 0.005 exactly (w ~ 1e-152 costs
 * lambda/2 ||w||^2 ~ 1e-306; the point (0, 0) needs b = -1). */
void test_hinge_finish_never_worse(void) {
  const double lambda = 0.01, base[12] = {3, 2, 2, 4, 4, 3, 0, 0, -1, 1, 1, -1};
  const double y[6] = {1, 1, 1, -1, -1, -1};
  const SsSolver solvers[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN, SS_SOLVER_SDCA};
  const double scales[] = {1e152, 1e153};
  for (size_t k = 0; k < sizeof scales / sizeof *scales; ++k) {
    double X[12];
    for (int j = 0; j < 12; ++j) X[j] = base[j] * scales[k];
    for (size_t a = 0; a < sizeof solvers / sizeof *solvers; ++a) {
      SsData data;
      SsSvm *svm = tu_new_dense(solvers[a], &data, X, y, 6, 2, lambda);
      CHECK(svm != NULL);
      if (!svm) continue;
      CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, 1.0), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      const double P = six_points_objective(svm, X, y, SS_LOSS_HINGE, lambda);
      CHECK(isfinite(st->objective) && fabs(P - st->objective) <= 1e-9 * P);
      CHECK(st->objective <= 1.0); /* was 2.2e271 (SGD), 1.005 (SDCA) */
      if (scales[k] == 1e152) {
        CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
        CHECK(st->objective <= 0.005 * (1 + ss_svm_get_epsilon(svm)));
      } else {
        CHECK(st->status != SS_SVM_STATUS_CONVERGED || st->objective <= 0.005 * (1 + ss_svm_get_epsilon(svm)));
      }
      ss_svm_delete(svm);
    }
  }
}

/* The smooth losses' finish on the same badly scaled points (times 1e50
 * and 1e153; lambda = 0.01 and B = 1, so the Hessian's diagonal spans 1e100
 * to 1e306 against the bias's 0.01): plain CG moved w only and the
 * finish ended at P = 0.5 (squared hinge) and 0.35 (logistic), status
 * max_iterations; RES and LRES at 0.198 and 0.27; SDCA's logistic fallback
 * (from 1e80 on) at 0.414, its trust region's radius, measured in the
 * Euclidean norm, fixed by a first step in w alone. The optimum is exact:
 * w ~ 1/scale separates (3, 2), (2, 4), (4, 3) at no cost, and w along
 * (1, 1) leaves the other three points at the score b, so P* = min_b
 * 3 loss(-1, b)/6 + lambda/2 b^2 (up to lambda/2 ||w||^2 ~ 1e-100 and, for
 * the logistic loss, exp(-margin) ~ 1e-18). The certificate, whose gradient
 * residual is multiplied by the rows' 1e50, cannot say so: the status
 * may stay max_iterations. */
void test_newton_finish_badly_scaled(void) {
  const double lambda = 0.01, base[12] = {3, 2, 2, 4, 4, 3, 0, 0, -1, 1, 1, -1};
  const double y[6] = {1, 1, 1, -1, -1, -1};
  /* P*: the squared hinge's b = -1/(1 + 2 lambda) in closed form; the
   * logistic's root of 1/2 sigma(b) + lambda b by bisection. */
  const double b2 = -1 / (1 + 2 * lambda), hinge2_opt = 0.5 * (1 + b2) * (1 + b2) + 0.5 * lambda * b2 * b2;
  double lo = -10, hi = 0;
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 / (1 + exp(-mid)) + lambda * mid < 0) lo = mid; else hi = mid;
  }
  const double logistic_opt = 0.5 * log1p(exp(lo)) + 0.5 * lambda * lo * lo;
  const SsSolver solvers[] = {SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN, SS_SOLVER_RES, SS_SOLVER_LRES,
                              SS_SOLVER_SDCA};
  const SsLoss losses[] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  const double scales[] = {1e50, 1e80, 1e153};
  for (size_t k = 0; k < sizeof scales / sizeof *scales; ++k) {
    double X[12];
    for (int j = 0; j < 12; ++j) X[j] = base[j] * scales[k];
    for (size_t a = 0; a < sizeof solvers / sizeof *solvers; ++a) {
      for (size_t l = 0; l < sizeof losses / sizeof *losses; ++l) {
        SsData data;
        SsSvm *svm = tu_new_dense(solvers[a], &data, X, y, 6, 2, lambda);
        CHECK(svm != NULL);
        if (!svm) continue;
        CHECK_EQ_INT(ss_svm_set_loss(svm, losses[l]), SS_OK);
        CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, 1.0), SS_OK);
        CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
        const SsSvmStatistics *st = ss_svm_get_statistics(svm);
        const double P = six_points_objective(svm, X, y, losses[l], lambda);
        const double optimum = losses[l] == SS_LOSS_HINGE2 ? hinge2_opt : logistic_opt;
        CHECK(isfinite(st->objective) && fabs(P - st->objective) <= 1e-9 * P);
        CHECK(st->objective <= optimum * (1 + 1e-9)); /* was 0.5, 0.35; RES 0.198, 0.27; SDCA 0.414 */
        CHECK(st->num_newton_iterations > 0);
        ss_svm_delete(svm);
      }
    }
  }
}

/* Example weights and a fixed offset (B = 0, b = 0.25) enter the problem
 * and its certificate. */
void test_primal_finish_hinge_weights_and_offset(void) {
  static double X[FN * FD], y[FN], c[FN];
  make_raw(X, y);
  for (int i = 0; i < FN; ++i) c[i] = 0.5 + i % 3;
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
    hinge_certificate(svm, X, y, c, kinked_losses[b], 0.0, &P, &D);
    CHECK(fabs(P - st->objective) <= 1e-9 * P);
    CHECK(P - D <= F_EPSILON * fmax(P, D) * (1 + 1e-6));
    ss_svm_delete(svm);
  }
}

/* Well-scaled overlapping classes at C = 1 (lambda = 1/n), where the
 * finish reaches width 0.1 and ends on coordinate ascent on the loss's own
 * dual (hinge_dual.c), with example weights (every 7th zero) and the
 * learned bias: certified, and within epsilon of SDCA's objective at
 * epsilon 1e-10 (the oracle: an exact dual method, run to its own gap). */
void test_primal_finish_hinge_dual_stage(void) {
  enum { DN = 600, DD = 5 };
  static double X[DN * DD], y[DN], c[DN];
  TuRng rng;
  tu_rng_init(&rng, 7);
  for (int i = 0; i < DN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    for (int j = 0; j < DD; ++j) X[i * DD + j] = tu_rng_uniform(&rng) - 0.5 + (j == 0 ? 0.2 * y[i] : 0.0);
    c[i] = i % 7 == 0 ? 0.0 : 0.5 + i % 3;
  }
  for (size_t b = 0; b < sizeof kinked_losses / sizeof *kinked_losses; ++b) {
    const SsLoss loss = kinked_losses[b];
    double objective[2] = {0, 0};
    for (int reference = 0; reference < 2; ++reference) {
      SsData data;
      SsSvm *svm = tu_new_dense(reference ? SS_SOLVER_SDCA : SS_SOLVER_SGD, &data, X, y, DN, DD, 1.0 / DN);
      CHECK(svm != NULL);
      if (!svm) continue;
      CHECK_EQ_INT(ss_svm_set_loss(svm, loss), SS_OK);
      CHECK_EQ_INT(ss_svm_set_weights(svm, c), SS_OK);
      CHECK_EQ_INT(ss_svm_set_epsilon(svm, reference ? 1e-10 : F_EPSILON), SS_OK);
      if (reference) CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100000 * (int64_t)DN), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const SsSvmStatistics *st = ss_svm_get_statistics(svm);
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
      if (!reference) {
        CHECK(st->num_newton_iterations > 0);
        CHECK(st->duality_gap <= F_EPSILON * st->objective * (1 + 1e-9));
      }
      objective[reference] = st->objective;
      ss_svm_delete(svm);
    }
    CHECK(objective[0] <= objective[1] * (1 + F_EPSILON) * (1 + 1e-9));
    CHECK(objective[0] >= objective[1] * (1 - 1e-9));
  }
}

typedef struct {
  int calls, stop_at;
} Interrupt;

static int interrupt_at(void *user) {
  Interrupt *it = user;
  return ++it->calls == it->stop_at;
}

/* The interrupt callback is polled at every Newton iteration (logistic, hinge): a stop there
 * returns SS_ERR_INTERRUPTED, status interrupted, with the iterations done. */
void test_primal_finish_interrupted(void) {
  static double X[FN * FD], y[FN];
  make_raw(X, y);
  SsData data;
  for (int hinge = 0; hinge <= 1; ++hinge) {
    const SsLoss loss = hinge ? SS_LOSS_HINGE : SS_LOSS_LOGISTIC;
    Interrupt count = {0, -1};
    SsSvm *svm = new_run(&data, X, y, SS_SOLVER_SGD, loss, -1);
    CHECK(svm != NULL);
    if (!svm) continue;
    CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, interrupt_at, &count), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const int64_t newton = ss_svm_get_statistics(svm)->num_newton_iterations;
    CHECK(newton > 2);
    ss_svm_delete(svm);

    /* The same run, stopped at the poll of its last Newton iteration. */
    Interrupt stop = {0, count.calls - 1};
    svm = new_run(&data, X, y, SS_SOLVER_SGD, loss, -1);
    CHECK(svm != NULL);
    if (!svm) continue;
    CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, interrupt_at, &stop), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
    CHECK(st->num_newton_iterations > 0 && st->num_newton_iterations < newton);
    CHECK(isfinite(st->objective));
    ss_svm_delete(svm);
  }
}
