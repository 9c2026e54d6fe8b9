/* test_sgd.c -- the SGD solver and the training contract of svm.h:
 * convergence to optima computed here independently, the losses (values
 * against derivatives), SS_SOLVER_NONE's statistics, storage independence,
 * warm start, the learning-rate schedule replayed by hand, seeds, callbacks
 * and interruption, divergence, label checks, per-example weights, stopping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "stochsvm/svm.h"
#include "testutil.h"

/* ------------------------------------------------------------------------ */
/*                 Independent references for the optimum                   */
/* ------------------------------------------------------------------------ */

/* Exact minimiser of the 1-D hinge objective without bias,
 * E(w) = lambda/2 w^2 + 1/n sum max(0, 1 - a_i w), a_i = y_i x_i.
 * E is a convex piecewise quadratic with breakpoints 1/a_i; on each piece the
 * stationary point is (1/(lambda n)) sum_{active} a_i. The minimum is at a
 * breakpoint or at a stationary point inside its own piece. */
static double hinge_1d_objective(const double *a, int n, double lambda, double w) {
  double e = 0.5 * lambda * w * w;
  for (int i = 0; i < n; ++i) e += fmax(0.0, 1.0 - a[i] * w) / n;
  return e;
}

static double hinge_1d_optimum(const double *a, int n, double lambda, double *w_opt) {
  double best_w = 0.0, best = hinge_1d_objective(a, n, lambda, 0.0);
  double cands[64];
  int nb = 0;
  for (int i = 0; i < n && nb < 64; ++i)
    if (a[i] != 0.0) cands[nb++] = 1.0 / a[i];
  /* Breakpoints themselves. */
  for (int k = 0; k < nb; ++k) {
    double e = hinge_1d_objective(a, n, lambda, cands[k]);
    if (e < best) { best = e; best_w = cands[k]; }
  }
  /* Stationary points of every active set that some w realises: the active
   * set at a stationary point w_s must reproduce w_s to be valid. */
  for (int k = 0; k <= nb; ++k) {
    /* probe points: left of everything, and just right of each breakpoint */
    double probe = (k == nb) ? -1e6 : cands[k] + 1e-9;
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
      if (1.0 - a[i] * probe > 0) sum += a[i];
    double ws = sum / (lambda * n);
    /* valid if ws has the same active set as the probe */
    int same = 1;
    for (int i = 0; i < n; ++i)
      if ((1.0 - a[i] * probe > 0) != (1.0 - a[i] * ws > 0)) same = 0;
    if (same) {
      double e = hinge_1d_objective(a, n, lambda, ws);
      if (e < best) { best = e; best_w = ws; }
    }
  }
  *w_opt = best_w;
  return best;
}

/* Dual coordinate ascent (the hinge loss, bias as a feature of value B):
 * max_alpha 1/n sum alpha_i - lambda/2 ||v(alpha)||^2, 0 <= alpha_i <= c_i,
 * v = 1/(lambda n) sum alpha_i y_i xt_i, xt_i = (x_i, B). Run to a duality gap
 * below 1e-12; returns the primal optimum and v = (w, b/B). */
static double hinge_dual_optimum(const double *X, const double *y, const double *c, int n, int d,
                                 double B, double lambda, double *v, double *gap_out) {
  const int D = d + 1;
  double *alpha = calloc((size_t)n, sizeof *alpha);
  for (int j = 0; j < D; ++j) v[j] = 0.0;
  double primal = 0.0, dual = 0.0;
  for (int sweep = 0; sweep < 200000; ++sweep) {
    for (int i = 0; i < n; ++i) {
      const double *x = X + (size_t)i * d;
      double s = v[d] * B, sq = B * B;
      for (int j = 0; j < d; ++j) { s += v[j] * x[j]; sq += x[j] * x[j]; }
      if (sq == 0) continue;
      double ci = c ? c[i] : 1.0;
      double na = alpha[i] + lambda * n * (1.0 - y[i] * s) / sq;
      na = fmin(fmax(na, 0.0), ci);
      double delta = na - alpha[i];
      if (delta != 0.0) {
        alpha[i] = na;
        double m = delta * y[i] / (lambda * n);
        for (int j = 0; j < d; ++j) v[j] += m * x[j];
        v[d] += m * B;
      }
    }
    if (sweep % 100 == 99) {
      double sqv = 0.0, sa = 0.0;
      for (int j = 0; j < D; ++j) sqv += v[j] * v[j];
      for (int i = 0; i < n; ++i) sa += alpha[i];
      dual = sa / n - 0.5 * lambda * sqv;
      primal = tu_objective(X, n, d, d, y, v, B * v[d], B, lambda, SS_LOSS_HINGE, c, NULL, NULL);
      if (primal - dual < 1e-13) break;
    }
  }
  free(alpha);
  *gap_out = primal - dual;
  return primal;
}

/* Derivative in s of a smooth loss. */
static double smooth_loss_derivative(SsLoss loss, double y, double s) {
  double z = y * s;
  if (loss == SS_LOSS_HINGE2) return z < 1 ? -2.0 * y * (1.0 - z) : 0.0;
  /* logistic: -y sigmoid(-z), computed stably */
  return z > 0 ? -y * exp(-z) / (1.0 + exp(-z)) : -y / (1.0 + exp(z));
}

/* Full-gradient descent with step 1/L on the smooth, lambda-strongly convex
 * objective over v = (w, b/B). Returns the optimum, writes v and the final
 * gradient norm. */
static double smooth_gd_optimum(const double *X, const double *y, int n, int d, double B,
                                double lambda, SsLoss loss, double *v, double *gnorm_out) {
  const int D = d + 1;
  double curv = (loss == SS_LOSS_HINGE2) ? 2.0 : 0.25, sumsq = 0.0;
  for (int i = 0; i < n; ++i) {
    double sq = B * B;
    for (int j = 0; j < d; ++j) sq += X[i * d + j] * X[i * d + j];
    sumsq += sq;
  }
  double L = lambda + curv * sumsq / n;
  double g[16];
  double gnorm = 0.0;
  for (int j = 0; j < D; ++j) v[j] = 0.0;
  for (int it = 0; it < 2000000; ++it) {
    for (int j = 0; j < D; ++j) g[j] = lambda * v[j];
    for (int i = 0; i < n; ++i) {
      double s = v[d] * B;
      for (int j = 0; j < d; ++j) s += v[j] * X[i * d + j];
      double dl = smooth_loss_derivative(loss, y[i], s) / n;
      for (int j = 0; j < d; ++j) g[j] += dl * X[i * d + j];
      g[d] += dl * B;
    }
    gnorm = 0.0;
    for (int j = 0; j < D; ++j) gnorm += g[j] * g[j];
    gnorm = sqrt(gnorm);
    if (gnorm < 1e-14) break;
    for (int j = 0; j < D; ++j) v[j] -= g[j] / L;
  }
  *gnorm_out = gnorm;
  return tu_objective(X, n, d, d, y, v, B * v[d], B, lambda, loss, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------------ */
/*                               Helpers                                    */
/* ------------------------------------------------------------------------ */

static void configure(SsSvm *svm, int64_t iterations, uint64_t seed) {
  ss_svm_set_max_num_iterations(svm, iterations);
  ss_svm_set_epsilon(svm, 0.0);
  ss_svm_set_seed(svm, seed);
}

/* ------------------------------------------------------------------------ */
/*                       Convergence to known optima                        */
/* ------------------------------------------------------------------------ */

void test_sgd_optimum_1d_hinge_no_bias(void) {
  enum { N = 8 };
  double X[N] = {2.0, 1.0, 0.5, -0.25, -1.0, -2.0, 0.75, -0.5};
  double y[N] = {1, 1, -1, 1, -1, -1, 1, 1};
  double a[N];
  for (int i = 0; i < N; ++i) a[i] = y[i] * X[i];
  const double lambda = 0.1;
  double w_opt;
  double e_opt = hinge_1d_optimum(a, N, lambda, &w_opt);
  /* The reference really is a minimum: a fine grid does not beat it. */
  for (int k = -4000; k <= 4000; ++k) {
    double w = w_opt + k * 1e-4;
    if (hinge_1d_objective(a, N, lambda, w) < e_opt - 1e-15) {
      CHECK(!"grid beat the closed-form optimum");
      break;
    }
  }
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, 1, lambda);
  REQUIRE(svm != NULL);
  configure(svm, 2000000, 1);
  ss_svm_set_bias_multiplier(svm, 0.0);
  ss_svm_set_diagnostic_frequency(svm, 100000);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  double w = ss_svm_get_model(svm)[0];
  CHECK(ss_svm_get_bias(svm) == 0.0); /* B = 0: the bias is not learned */
  CHECK_REL(hinge_1d_objective(a, N, lambda, w), st->objective, 1e-12);
  CHECK(st->objective >= e_opt - 1e-12);
  CHECK((st->objective - e_opt) / e_opt < 1e-3);
  CHECK_CLOSE(w, w_opt, 0.02);
  ss_svm_delete(svm);
}

static void check_sgd_optimum_2d(SsLoss loss) {
  enum { N = 12, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.6, 17);
  const double lambda = 0.1, B = 1.0;
  double v[D + 1], e_opt;
  if (loss == SS_LOSS_HINGE) {
    double gap;
    e_opt = hinge_dual_optimum(X, y, NULL, N, D, B, lambda, v, &gap);
    CHECK(gap < 1e-10);
  } else {
    double gnorm;
    e_opt = smooth_gd_optimum(X, y, N, D, B, lambda, loss, v, &gnorm);
    CHECK(gnorm < 1e-10);
  }
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, lambda);
  REQUIRE(svm != NULL);
  configure(svm, 2000000, 2);
  ss_svm_set_loss(svm, loss);
  ss_svm_set_bias_multiplier(svm, B);
  ss_svm_set_diagnostic_frequency(svm, 100000);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  const double *w = ss_svm_get_model(svm);
  double b = ss_svm_get_bias(svm);
  double e = tu_objective(X, N, D, D, y, w, b, B, lambda, loss, NULL, NULL, NULL);
  CHECK_REL(e, st->objective, 1e-12);
  CHECK(e >= e_opt - 1e-12);
  double rel = (e - e_opt) / e_opt;
  if (!(rel < 1e-3)) printf("  loss %d: sgd %.10g optimum %.10g\n", (int)loss, e, e_opt);
  CHECK(rel < 1e-3);
  CHECK_CLOSE(w[0], v[0], 0.05);
  CHECK_CLOSE(w[1], v[1], 0.05);
  CHECK_CLOSE(b, B * v[2], 0.05);
  ss_svm_delete(svm);
}

void test_sgd_optimum_2d_hinge_bias(void) { check_sgd_optimum_2d(SS_LOSS_HINGE); }
void test_sgd_optimum_2d_hinge2_bias(void) { check_sgd_optimum_2d(SS_LOSS_HINGE2); }
void test_sgd_optimum_2d_logistic_bias(void) { check_sgd_optimum_2d(SS_LOSS_LOGISTIC); }

/* ------------------------------------------------------------------------ */
/*              Losses: the core's values against its derivatives           */
/* ------------------------------------------------------------------------ */

/* The core's loss value at score s: SS_SOLVER_NONE on one example x = 1,
 * model w = s, no bias; the statistics' loss part. */
static double core_loss_value(SsLoss loss, double y, double s) {
  const double x[1] = {1.0}, lab[1] = {y}, w[1] = {s};
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_NONE, &data, x, lab, 1, 1, 1.0);
  if (!svm) return NAN;
  ss_svm_set_loss(svm, loss);
  ss_svm_set_bias_multiplier(svm, 0.0);
  ss_svm_set_model(svm, w);
  double v = ss_svm_train(svm) == SS_OK ? ss_svm_get_statistics(svm)->loss : NAN;
  ss_svm_delete(svm);
  return v;
}

/* The core's loss derivative at s, read off one SGD step from w = s with
 * lambda = 1, t0 = 4 (eta_0 = 1/4): w1 = (1 - 1/4) s - g/4, so g = 3 s - 4 w1. */
static double core_loss_derivative(SsLoss loss, double y, double s) {
  const double x[1] = {1.0}, lab[1] = {y}, w[1] = {s};
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, x, lab, 1, 1, 1.0);
  if (!svm) return NAN;
  ss_svm_set_loss(svm, loss);
  ss_svm_set_bias_multiplier(svm, 0.0);
  ss_svm_set_t0(svm, 4.0);
  ss_svm_set_max_num_iterations(svm, 1);
  ss_svm_set_model(svm, w);
  double g = ss_svm_train(svm) == SS_OK ? 3.0 * s - 4.0 * ss_svm_get_model(svm)[0] : NAN;
  ss_svm_delete(svm);
  return g;
}

void test_losses_finite_differences(void) {
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  const double points[7] = {-3.0, -0.7, 0.2, 0.6, 1.5, 4.0, 0.95};
  const double h = 1e-5;
  for (int k = 0; k < 3; ++k) {
    for (int yi = 0; yi < 2; ++yi) {
      const double y = yi ? -1.0 : 1.0;
      for (int p = 0; p < 7; ++p) {
        const double s = points[p];
        double v = core_loss_value(losses[k], y, s);
        CHECK_CLOSE(v, tu_loss(losses[k], y, s), 1e-14);
        double fd = (core_loss_value(losses[k], y, s + h) - core_loss_value(losses[k], y, s - h)) / (2 * h);
        double g = core_loss_derivative(losses[k], y, s);
        if (fabs(g - fd) > 1e-6) printf("  loss %d y %g s %g: step %g, fd %g\n", (int)losses[k], y, s, g, fd);
        CHECK_CLOSE(g, fd, 1e-6);
      }
    }
  }
  /* The logistic loss is computed without overflow far from the margin. */
  CHECK_REL(core_loss_value(SS_LOSS_LOGISTIC, 1.0, -800.0), 800.0, 1e-15);
  CHECK_REL(core_loss_value(SS_LOSS_LOGISTIC, -1.0, 800.0), 800.0, 1e-15);
  double tiny = core_loss_value(SS_LOSS_LOGISTIC, 1.0, 800.0);
  CHECK(tiny >= 0 && tiny < 1e-300);
  CHECK_CLOSE(core_loss_derivative(SS_LOSS_LOGISTIC, 1.0, -800.0), -1.0, 1e-9);
}

/* ------------------------------------------------------------------------ */
/*                            SS_SOLVER_NONE                                */
/* ------------------------------------------------------------------------ */

void test_none_statistics(void) {
  enum { N = 9, D = 4 };
  double X[N * D], y[N], c[N];
  tu_make_blobs(X, y, N, D, 0.5, 8);
  for (int i = 0; i < N; ++i) c[i] = 0.25 * (i % 4);
  const double w[D] = {0.7, -1.3, 0.05, 2.0};
  const double lambda = 0.37;
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  const double Bs[3] = {1.0, 2.5, 0.0};
  for (int li = 0; li < 3; ++li) {
    for (int bi = 0; bi < 3; ++bi) {
      for (int wi = 0; wi < 2; ++wi) {
        SsData data;
        SsSvm *svm = tu_new_dense(SS_SOLVER_NONE, &data, X, y, N, D, lambda);
        REQUIRE(svm != NULL);
        const double b = -0.4;
        CHECK_EQ_INT(ss_svm_set_loss(svm, losses[li]), SS_OK);
        CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, Bs[bi]), SS_OK);
        CHECK_EQ_INT(ss_svm_set_model(svm, w), SS_OK);
        CHECK_EQ_INT(ss_svm_set_bias(svm, b), SS_OK);
        CHECK_EQ_INT(ss_svm_set_iteration_number(svm, 5), SS_OK);
        if (wi) CHECK_EQ_INT(ss_svm_set_weights(svm, c), SS_OK);
        CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
        double reg, lo;
        double e = tu_objective(X, N, D, D, y, w, b, Bs[bi], lambda, losses[li], wi ? c : NULL,
                                &reg, &lo);
        const SsSvmStatistics *st = ss_svm_get_statistics(svm);
        CHECK_CLOSE(st->objective, e, 1e-12);
        CHECK_CLOSE(st->regularizer, reg, 1e-12);
        CHECK_CLOSE(st->loss, lo, 1e-12);
        CHECK_CLOSE(st->objective, st->regularizer + st->loss, 1e-12);
        const double *sc = ss_svm_get_scores(svm);
        REQUIRE(sc != NULL);
        for (int i = 0; i < N; ++i) {
          double s = b;
          for (int j = 0; j < D; ++j) s += w[j] * X[i * D + j];
          CHECK_CLOSE(sc[i], s, 1e-12);
        }
        /* NONE leaves the model, bias and iteration number alone. */
        CHECK(tu_same_bits(ss_svm_get_model(svm), w, D));
        CHECK(ss_svm_get_bias(svm) == b);
        CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 5);
        ss_svm_delete(svm);
      }
    }
  }
}

/* ------------------------------------------------------------------------ */
/*                         Storage independence                             */
/* ------------------------------------------------------------------------ */

void test_sgd_storages_agree(void) {
  enum { N = 20, D = 6 };
  double X[N * D], y[N];
  float Xf[N * D];
  tu_make_blobs(X, y, N, D, 0.8, 23);
  /* Sparsify (about half zeros; row 3 empty) -- values stay float32-exact. */
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < D; ++j)
      if ((i * 7 + j * 3) % 5 < 2 || i == 3) X[i * D + j] = 0.0;
  double cv[N * D];
  float cvf[N * D];
  int64_t indptr[N + 1];
  int32_t idx[N * D];
  int64_t nnz = 0;
  indptr[0] = 0;
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < D; ++j) {
      Xf[i * D + j] = (float)X[i * D + j];
      if (X[i * D + j] != 0.0) {
        cv[nnz] = X[i * D + j];
        cvf[nnz] = (float)X[i * D + j];
        idx[nnz] = j;
        ++nnz;
      }
    }
    indptr[i + 1] = nnz;
  }
  enum { STRIDE = D + 3 };
  double Xs[N * STRIDE];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < STRIDE; ++j) Xs[i * STRIDE + j] = j < D ? X[i * D + j] : 1e6;
  SsData views[5];
  REQUIRE(ss_data_init_dense(&views[4], SS_DTYPE_FLOAT64, Xs, N, D, STRIDE) == SS_OK);
  REQUIRE(ss_data_init_dense(&views[0], SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  REQUIRE(ss_data_init_dense(&views[1], SS_DTYPE_FLOAT32, Xf, N, D, D) == SS_OK);
  REQUIRE(ss_data_init_csr(&views[2], SS_DTYPE_FLOAT64, cv, indptr, idx, N, D) == SS_OK);
  REQUIRE(ss_data_init_csr(&views[3], SS_DTYPE_FLOAT32, cvf, indptr, idx, N, D) == SS_OK);
  double models[5][D], biases[5], objectives[5];
  for (int k = 0; k < 5; ++k) {
    SsSvm *svm = ss_svm_new(SS_SOLVER_SGD, &views[k], y, 0.01);
    REQUIRE(svm != NULL);
    configure(svm, 50 * N, 9);
    ss_svm_set_bias_multiplier(svm, 2.0);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    memcpy(models[k], ss_svm_get_model(svm), sizeof models[k]);
    biases[k] = ss_svm_get_bias(svm);
    objectives[k] = ss_svm_get_statistics(svm)->objective;
    ss_svm_delete(svm);
  }
  CHECK(fabs(models[0][0]) > 1e-3);
  for (int k = 1; k < 5; ++k) {
    for (int j = 0; j < D; ++j) CHECK_CLOSE(models[k][j], models[0][j], 1e-6);
    CHECK_CLOSE(biases[k], biases[0], 1e-6);
    CHECK_CLOSE(objectives[k], objectives[0], 1e-6);
  }
}

/* ------------------------------------------------------------------------ */
/*                               Warm start                                 */
/* ------------------------------------------------------------------------ */

enum { WN = 10, WD = 3 };

typedef struct WarmData {
  double X[WN * WD];
  double y[WN];
  SsData data;
} WarmData;

static SsSvm *warm_new(WarmData *wd, int64_t cap) {
  tu_make_blobs(wd->X, wd->y, WN, WD, 0.3, 31);
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &wd->data, wd->X, wd->y, WN, WD, 0.05);
  if (!svm) return NULL;
  configure(svm, cap, 77);
  ss_svm_set_bias_learning_rate(svm, 0.5);
  ss_svm_set_bias_multiplier(svm, 1.5);
  return svm;
}

/* Train `total` iterations at once and in the given pieces; compare bitwise. */
static void check_split(int64_t total, const int64_t *pieces, int npieces) {
  WarmData w1, w2;
  SsSvm *one = warm_new(&w1, total);
  SsSvm *many = warm_new(&w2, pieces[0]);
  REQUIRE(one && many);
  CHECK_EQ_INT(ss_svm_train(one), SS_OK);
  int64_t done = 0;
  for (int k = 0; k < npieces; ++k) {
    ss_svm_set_max_num_iterations(many, pieces[k]);
    CHECK_EQ_INT(ss_svm_train(many), SS_OK);
    done += pieces[k];
    CHECK_EQ_INT(ss_svm_get_iteration_number(many), done);
  }
  CHECK_EQ_INT(done, total);
  int same = tu_same_bits(ss_svm_get_model(one), ss_svm_get_model(many), WD);
  if (!same) {
    printf("  split of %lld: ", (long long)total);
    for (int j = 0; j < WD; ++j)
      printf("%.17g/%.17g ", ss_svm_get_model(one)[j], ss_svm_get_model(many)[j]);
    printf("\n");
  }
  CHECK(same);
  CHECK(ss_svm_get_bias(one) == ss_svm_get_bias(many));
  CHECK_EQ_INT(ss_svm_get_iteration_number(one), total);
  CHECK_EQ_INT(ss_svm_get_iteration_number(many), total);
  CHECK(ss_svm_get_statistics(one)->objective == ss_svm_get_statistics(many)->objective);
  CHECK(ss_svm_get_model(one)[0] != 0.0);
  ss_svm_delete(one);
  ss_svm_delete(many);
}

void test_sgd_warm_start_epoch_boundary(void) {
  const int64_t p[2] = {20 * WN, 20 * WN};
  check_split(40 * WN, p, 2);
}

void test_sgd_warm_start_mid_epoch(void) {
  const int64_t p[2] = {15, 15}; /* 1.5 epochs, then 1.5 more */
  check_split(30, p, 2);
  const int64_t q[2] = {WN * 10 + 3, WN * 10 + 3};
  check_split(2 * (WN * 10 + 3), q, 2);
  const int64_t r[4] = {7, 1, 11, 31};
  check_split(50, r, 4);
}

void test_sgd_warm_start_fresh_object(void) {
  WarmData w1, w2;
  SsSvm *a = warm_new(&w1, 6 * WN);
  SsSvm *c = warm_new(&w2, 6 * WN);
  REQUIRE(a && c);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  double w_mid[WD];
  memcpy(w_mid, ss_svm_get_model(a), sizeof w_mid);
  double b_mid = ss_svm_get_bias(a);
  int64_t t_mid = ss_svm_get_iteration_number(a);
  CHECK_EQ_INT(t_mid, 6 * WN);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  /* c is fresh: same parameters and seed, given the state at the split. */
  CHECK_EQ_INT(ss_svm_set_model(c, w_mid), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(c, b_mid), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(c, t_mid), SS_OK);
  CHECK_EQ_INT(ss_svm_train(c), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(c), 12 * WN);
  CHECK(tu_same_bits(ss_svm_get_model(a), ss_svm_get_model(c), WD));
  CHECK(ss_svm_get_bias(a) == ss_svm_get_bias(c));
  CHECK(!tu_same_bits(ss_svm_get_model(a), w_mid, WD));
  ss_svm_delete(a);
  ss_svm_delete(c);
}

void test_sgd_iteration_number_is_used(void) {
  WarmData w1, w2;
  SsSvm *a = warm_new(&w1, 5 * WN);
  SsSvm *b = warm_new(&w2, 5 * WN);
  REQUIRE(a && b);
  CHECK_EQ_INT(ss_svm_set_iteration_number(b, 1000000), SS_OK);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(b), 1000000 + 5 * WN);
  const double *wa = ss_svm_get_model(a), *wb = ss_svm_get_model(b);
  double diff = 0;
  for (int j = 0; j < WD; ++j) diff = fmax(diff, fabs(wa[j] - wb[j]));
  CHECK(diff > 1e-3);
  /* Late in the schedule the steps are tiny: the model stays near 0. */
  double nb = 0, na = 0;
  for (int j = 0; j < WD; ++j) { nb += wb[j] * wb[j]; na += wa[j] * wa[j]; }
  CHECK(nb < 1e-2 * na);
  ss_svm_delete(a);
  ss_svm_delete(b);
}

/* With all weights zero no loss step happens: the model only shrinks, by
 * prod_{t = t_s}^{t_s + T - 1} (1 - 1/(t + t0)) = (t_s + t0 - 1)/(t_s + T + t0 - 1),
 * with eta_t = 1/(lambda (t + t0)); the bias shrinks by prod (1 - r_b/(t + t0)). */
void test_sgd_schedule_shrinkage(void) {
  enum { N = 5, D = 2 };
  double X[N * D], y[N], zero[N] = {0};
  tu_make_blobs(X, y, N, D, 1.0, 3);
  const double lambda = 0.2, t0 = 10.0, rb = 0.5;
  const int64_t ts = 7, T = 23;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, lambda);
  REQUIRE(svm != NULL);
  configure(svm, T, 0);
  const double w0[D] = {3.0, -2.0}, b0 = 1.5;
  CHECK_EQ_INT(ss_svm_set_weights(svm, zero), SS_OK);
  CHECK_EQ_INT(ss_svm_set_t0(svm, t0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(svm, rb), SS_OK);
  CHECK_EQ_INT(ss_svm_set_model(svm, w0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(svm, b0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, ts), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  double fw = (ts + t0 - 1) / (ts + T + t0 - 1), fb = 1.0;
  for (int64_t t = ts; t < ts + T; ++t) fb *= 1.0 - rb / (t + t0);
  const double *w = ss_svm_get_model(svm);
  CHECK_REL(w[0], w0[0] * fw, 1e-12);
  CHECK_REL(w[1], w0[1] * fw, 1e-12);
  CHECK_REL(ss_svm_get_bias(svm), b0 * fb, 1e-12);
  /* With B = 0 the bias is frozen. */
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, 0.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(svm, b0), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(ss_svm_get_bias(svm) == b0);
  ss_svm_delete(svm);
}

/* With a single example the visiting order is trivial, so the whole SGD
 * trajectory can be replayed here from docs/algorithm.rst, unfactored:
 *   w <- (1 - lambda eta_t) w - eta_t g x,   g = c loss'(s), eta_t = 1/(lambda (t + t0)),
 *   w_b <- w_b - r_b eta_t (lambda w_b + g B),  b = B w_b. */
static void replay_single_example(SsLoss loss, double label, int64_t ts, int64_t T) {
  enum { D = 3 };
  const double x[D] = {0.5, -1.25, 2.0};
  const double y[1] = {label}, c[1] = {3.0};
  const double lambda = 0.05, B = 2.0, rb = 0.5;
  const double w0[D] = {0.1, 0.2, -0.3}, b0 = 0.25;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, x, y, 1, D, lambda);
  REQUIRE(svm != NULL);
  configure(svm, T, 0);
  CHECK_EQ_INT(ss_svm_set_loss(svm, loss), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_multiplier(svm, B), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(svm, rb), SS_OK);
  CHECK_EQ_INT(ss_svm_set_weights(svm, c), SS_OK);
  CHECK_EQ_INT(ss_svm_set_model(svm, w0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(svm, b0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, ts), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);

  /* Default t0 (svm.h): max(2, 2/lambda, L/lambda), L = 2 R^2 or R^2/4,
   * R^2 = ||x||^2 + B^2. */
  const double R2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + B * B;
  const double L = loss == SS_LOSS_HINGE2 ? 2.0 * R2 : loss == SS_LOSS_LOGISTIC ? 0.25 * R2 : 0.0;
  const double t0 = fmax(2.0, fmax(2.0, L) / lambda);
  CHECK_CLOSE(ss_svm_get_t0(svm), t0, 1e-12 * t0);
  double w[D], b = b0;
  memcpy(w, w0, sizeof w);
  int active = 0;
  for (int64_t t = ts; t < ts + T; ++t) {
    double s = b;
    for (int j = 0; j < D; ++j) s += w[j] * x[j];
    double z = label * s, g;
    if (loss == SS_LOSS_HINGE) {
      g = z < 1 ? -label : 0.0;
      REQUIRE(fabs(z - 1) > 1e-9); /* no near-tie, so rounding cannot flip a step */
    } else {
      g = smooth_loss_derivative(loss, label, s);
    }
    g *= c[0];
    active += g != 0;
    double eta = 1.0 / (lambda * ((double)t + t0));
    for (int j = 0; j < D; ++j) w[j] = (1.0 - lambda * eta) * w[j] - eta * g * x[j];
    double wb = b / B;
    wb -= rb * eta * (lambda * wb + g * B);
    b = B * wb;
  }
  CHECK(active > 0);
  const double *got = ss_svm_get_model(svm);
  for (int j = 0; j < D; ++j) CHECK_REL(got[j], w[j], 1e-12);
  CHECK_REL(ss_svm_get_bias(svm), b, 1e-12);
  ss_svm_delete(svm);
}

void test_sgd_replay_single_example(void) {
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int k = 0; k < 3; ++k) {
    replay_single_example(losses[k], 1.0, 0, 6);
    replay_single_example(losses[k], -1.0, 0, 6);
    replay_single_example(losses[k], 1.0, 17, 4);
    if (losses[k] != SS_LOSS_HINGE) replay_single_example(losses[k], -1.0, 3, 200);
  }
}

/* set_model replaces the model whatever the solver's internal state: after a
 * run that stops mid-epoch, setting (model, bias, iteration) gives the same
 * continuation as a fresh object given the same state. */
void test_sgd_set_model_after_training(void) {
  WarmData w1, w2;
  SsSvm *a = warm_new(&w1, 15); /* 1.5 epochs */
  SsSvm *c = warm_new(&w2, 15);
  REQUIRE(a && c);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  const double w0[WD] = {0.3, -0.2, 0.1};
  SsSvm *both[2] = {a, c};
  for (int k = 0; k < 2; ++k) {
    CHECK_EQ_INT(ss_svm_set_model(both[k], w0), SS_OK);
    CHECK_EQ_INT(ss_svm_set_bias(both[k], -0.1), SS_OK);
    CHECK_EQ_INT(ss_svm_set_iteration_number(both[k], 15), SS_OK);
    CHECK(tu_same_bits(ss_svm_get_model(both[k]), w0, WD));
    CHECK_EQ_INT(ss_svm_train(both[k]), SS_OK);
  }
  const double *wa = ss_svm_get_model(a), *wc = ss_svm_get_model(c);
  for (int j = 0; j < WD; ++j) CHECK_CLOSE(wa[j], wc[j], 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(a), ss_svm_get_bias(c), 1e-12);
  ss_svm_delete(a);
  ss_svm_delete(c);
}

/* Iteration numbers near INT64_MAX are valid (>= 0): no overflow, no crash. */
void test_sgd_huge_iteration_number(void) {
  WarmData wd;
  SsSvm *svm = warm_new(&wd, 100);
  REQUIRE(svm != NULL);
  const int64_t start = INT64_MAX - 1000;
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, start), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), start + 100);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->iteration, start + 100);
  CHECK_EQ_INT(st->epoch, (start + 100) / WN);
  CHECK(isfinite(st->objective));
  /* A huge diagnostic frequency past a multiple of it: the next diagnostic
   * (2^63) is not representable. */
  const int64_t f = INT64_C(1) << 62;
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, f), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, f + 1), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), f + 101);
  ss_svm_delete(svm);
}

/* ------------------------------------------------------------------------ */
/*                                  Seeds                                   */
/* ------------------------------------------------------------------------ */

void test_sgd_seeds(void) {
  enum { N = 25, D = 3 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.4, 5);
  double models[3][D];
  const uint64_t seeds[3] = {12345, 12345, 12346};
  for (int k = 0; k < 3; ++k) {
    SsData data;
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
    REQUIRE(svm != NULL);
    configure(svm, 7 * N + 4, seeds[k]);
    CHECK(ss_svm_get_seed(svm) == seeds[k]);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    memcpy(models[k], ss_svm_get_model(svm), sizeof models[k]);
    ss_svm_delete(svm);
  }
  CHECK(tu_same_bits(models[0], models[1], D));
  CHECK(!tu_same_bits(models[0], models[2], D));
  double diff = 0;
  for (int j = 0; j < D; ++j) diff = fmax(diff, fabs(models[0][j] - models[2][j]));
  CHECK(diff > 1e-9);
}

/* ------------------------------------------------------------------------ */
/*                       Callbacks and interruption                         */
/* ------------------------------------------------------------------------ */

typedef struct DiagLog {
  int calls;
  int stop_at;             /* return non-zero on this call (1-based); 0 never */
  int64_t iterations[64];
  int statuses[64];
  double first_variation;
  double second_variation;
  int64_t frequency;
  int bad_getter;
} DiagLog;

static int diag_cb(const SsSvm *svm, void *user) {
  DiagLog *log = user;
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  if (log->calls < 64) {
    log->iterations[log->calls] = st->iteration;
    log->statuses[log->calls] = st->status;
  }
  if (log->calls == 0) log->first_variation = st->scores_variation;
  if (log->calls == 1) log->second_variation = st->scores_variation;
  if (ss_svm_get_iteration_number(svm) != st->iteration) log->bad_getter = 1;
  if (ss_svm_get_scores(svm) == NULL) log->bad_getter = 1;
  log->calls++;
  return log->stop_at && log->calls == log->stop_at;
}

void test_sgd_diagnostic_interrupts(void) {
  enum { N = 13, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 6);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
  REQUIRE(svm != NULL);
  DiagLog log;
  memset(&log, 0, sizeof log);
  log.stop_at = 2;
  const int64_t freq = 7;
  configure(svm, 100 * N, 0);
  CHECK_EQ_INT(ss_svm_set_diagnostic_frequency(svm, freq), SS_OK);
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, diag_cb, &log), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(log.calls, 2);
  CHECK_EQ_INT(log.iterations[0], freq);
  CHECK_EQ_INT(log.iterations[1], 2 * freq);
  CHECK_EQ_INT(log.statuses[0], SS_SVM_STATUS_TRAINING);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
  CHECK_EQ_INT(st->iteration, 2 * freq);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 2 * freq);
  CHECK_EQ_INT(st->epoch, (2 * freq) / N);
  CHECK(isinf(log.first_variation) && log.first_variation > 0);
  CHECK(isfinite(log.second_variation) && log.second_variation >= 0);
  CHECK(!log.bad_getter);
  /* Training again resumes from the interruption point. */
  memset(&log, 0, sizeof log);
  ss_svm_set_max_num_iterations(svm, 3 * freq);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 5 * freq);
  CHECK_EQ_INT(log.iterations[0], 3 * freq);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
  /* Removing the callback: no more calls. */
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, NULL, NULL), SS_OK);
  int calls = log.calls;
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK_EQ_INT(log.calls, calls);
  ss_svm_delete(svm);
}

void test_sgd_diagnostic_schedule(void) {
  /* Default frequency n: one call per epoch plus one at the end of the run. */
  enum { N = 11, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 6);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
  REQUIRE(svm != NULL);
  DiagLog log;
  memset(&log, 0, sizeof log);
  configure(svm, 3 * N + 5, 0);
  CHECK_EQ_INT(ss_svm_set_diagnostic_function(svm, diag_cb, &log), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  REQUIRE(log.calls >= 3);
  CHECK_EQ_INT(log.iterations[0], N);
  CHECK_EQ_INT(log.iterations[1], 2 * N);
  CHECK_EQ_INT(log.iterations[2], 3 * N);
  CHECK_EQ_INT(log.iterations[log.calls - 1], 3 * N + 5);
  CHECK(log.calls == 4);
  CHECK(!log.bad_getter);
  ss_svm_delete(svm);
}

typedef struct IntLog {
  int polls;
  int stop_at;
} IntLog;

static int interrupt_cb(void *user) {
  IntLog *log = user;
  log->polls++;
  return log->polls >= log->stop_at;
}

void test_sgd_interrupt_callback(void) {
  enum { N = 50, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 7);
  for (int stop_at = 1; stop_at <= 3; stop_at += 2) {
    SsData data;
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
    REQUIRE(svm != NULL);
    IntLog log = {0, stop_at};
    configure(svm, 1000000, 0);
    ss_svm_set_diagnostic_frequency(svm, 1000000000);
    CHECK_EQ_INT(ss_svm_set_interrupt_function(svm, interrupt_cb, &log), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_INTERRUPTED);
    int64_t it = ss_svm_get_iteration_number(svm);
    CHECK(it <= (int64_t)stop_at * SS_SVM_INTERRUPT_PERIOD);
    if (stop_at > 1) CHECK(it >= (int64_t)(stop_at - 1) * SS_SVM_INTERRUPT_PERIOD);
    CHECK_EQ_INT(log.polls, stop_at);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_INTERRUPTED);
    CHECK_EQ_INT(st->iteration, it);
    ss_svm_delete(svm);
  }
}

/* ------------------------------------------------------------------------ */
/*                         Divergence and bad labels                        */
/* ------------------------------------------------------------------------ */

void test_sgd_diverges_huge_bias_rate(void) {
  enum { N = 10, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 9);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  configure(svm, 1000 * N, 0);
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(svm, 1e300), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_NUMERIC);
  CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_ERROR);
  /* Recovery as svm.h says: reset the model (and bias), train again. */
  const double zero[D] = {0, 0};
  CHECK_EQ_INT(ss_svm_set_bias_learning_rate(svm, 1.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_model(svm, zero), SS_OK);
  CHECK_EQ_INT(ss_svm_set_bias(svm, 0.0), SS_OK);
  CHECK_EQ_INT(ss_svm_set_iteration_number(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(isfinite(ss_svm_get_statistics(svm)->objective));
  CHECK(isfinite(ss_svm_get_model(svm)[0]) && isfinite(ss_svm_get_bias(svm)));
  ss_svm_delete(svm);
}

void test_sgd_diverges_huge_data(void) {
  enum { N = 6, D = 3 };
  double X[N * D], y[N];
  for (int i = 0; i < N; ++i) {
    y[i] = (i % 2) ? -1.0 : 1.0;
    for (int j = 0; j < D; ++j) X[i * D + j] = ((i + j) % 3 - 1) * 1e150 + 1e149;
  }
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 1e-3);
  REQUIRE(svm != NULL);
  configure(svm, 1000 * N, 0);
  /* (values near 1e150: their squares are finite, the steps on them are
   * not) VLFeat's t0 = 2/lambda, set by the caller: no step back-off */
  CHECK_EQ_INT(ss_svm_set_t0(svm, 2.0 / 1e-3), SS_OK);
  const SsStatus s = ss_svm_train(svm);
  CHECK(s == SS_ERR_NUMERIC || s == SS_ERR_DIVERGED);
  const SsSvmStatus status = ss_svm_get_statistics(svm)->status;
  CHECK(status == SS_SVM_STATUS_ERROR || status == SS_SVM_STATUS_DIVERGED);
  /* The same t0 by default: the back-off restarts with steps sized by the
   * row norms, and the run ends finite, not above w = 0 (hinge: 1). */
  SsSvm *rescued = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 1e-3);
  REQUIRE(rescued != NULL);
  configure(rescued, 1000 * N, 0);
  CHECK_EQ_INT(ss_svm_train(rescued), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(rescued);
  CHECK(st->num_step_backoffs >= 1);
  CHECK(isfinite(st->objective) && st->objective <= 1.0);
  ss_svm_delete(svm);
  ss_svm_delete(rescued);
}

/* The kernel solvers that train on a kernel object's data. */
static const SsKernelSolver kernel_solvers[] = {SS_KSOLVER_SBP, SS_KSOLVER_SDCA, SS_KSOLVER_PEGASOS,
                                                SS_KSOLVER_BSCA};
#define NUM_KERNEL_SOLVERS (sizeof kernel_solvers / sizeof kernel_solvers[0])

/* train refuses the data with SS_ERR_BAD_DATA and a message holding @p text. */
#define CHECK_SVM_REFUSES(svm, text)                                         \
  do {                                                                       \
    CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_DATA);                        \
    CHECK(strstr(ss_svm_get_last_error(svm), (text)) != NULL);               \
  } while (0)
#define CHECK_KERNEL_SVM_REFUSES(svm, text)                                  \
  do {                                                                       \
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_ERR_BAD_DATA);                 \
    CHECK(strstr(ss_kernel_svm_get_last_error(svm), (text)) != NULL);        \
  } while (0)

/* Values whose squares overflow (1e300) make every inner product
 * meaningless: training refuses them up front, for every solver of both
 * objects, and says which row and what to do. */
void test_overflowing_squared_norms_refused(void) {
  double X[4] = {1, 0, 0, 1e300}, y[2] = {1, -1};
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, 2, 2, 2) == SS_OK);
  const SsSolver solvers[] = {SS_SOLVER_NONE, SS_SOLVER_SGD, SS_SOLVER_SDCA, SS_SOLVER_SVMSGD2,
                              SS_SOLVER_SGDQN, SS_SOLVER_RES, SS_SOLVER_LRES};
  for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; ++k) {
    SsSvm *svm = ss_svm_new(solvers[k], &data, y, 0.1);
    REQUIRE(svm != NULL);
    CHECK_SVM_REFUSES(svm, "row 1 of the data X");
    CHECK_EQ_INT(ss_svm_get_statistics(svm)->status, SS_SVM_STATUS_UNTRAINED);
    ss_svm_delete(svm);
  }
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 1.0, 0.0, 1) == SS_OK);
  for (size_t k = 0; k < NUM_KERNEL_SOLVERS; ++k) {
    SsKernelSvm *svm = ss_kernel_svm_new(kernel_solvers[k], &kernel, &data, y, 0.1);
    REQUIRE(svm != NULL);
    CHECK_KERNEL_SVM_REFUSES(svm, "row 1 of the data X");
    ss_kernel_svm_delete(svm);
  }
  /* the largest values whose squares stay finite are trained on */
  X[3] = 1e150;
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, &data, y, 0.1);
  REQUIRE(svm != NULL);
  CHECK(ss_svm_train(svm) != SS_ERR_BAD_DATA);
  ss_svm_delete(svm);
}

/* The objects borrow X's values. One written to NaN after set_data is named
 * as such (it was reported as divergence by the linear object and trained on
 * silently by kernel SDCA). The kernel object, whose norms and state were made
 * from the values set_data saw, refuses finite changes too (it trained on
 * stale norms); after set_data it trains as on the same values given fresh. */
void test_values_changed_after_set_data_are_named(void) {
  enum { N = 8, D = 2 };
  double X[N * D], y[N], fresh[N * D];
  tu_make_blobs(X, y, N, D, 0.5, 11);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  const SsSolver solvers[] = {SS_SOLVER_SGD, SS_SOLVER_SDCA, SS_SOLVER_SGDQN};
  for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; ++k) {
    SsSvm *svm = ss_svm_new(solvers[k], &data, y, 0.1);
    REQUIRE(svm != NULL);
    X[5] = NAN;
    CHECK_SVM_REFUSES(svm, "row 2 of the data X holds a value that is not finite: X changed after set_data");
    X[5] = 0.25;
    ss_svm_delete(svm);
  }
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0.0, 1) == SS_OK);
  for (size_t k = 0; k < NUM_KERNEL_SOLVERS; ++k) {
    SsKernelSvm *svm = ss_kernel_svm_new(kernel_solvers[k], &kernel, &data, y, 0.1);
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 5 * N), SS_OK);
    X[5] = NAN;
    CHECK_KERNEL_SVM_REFUSES(svm, "row 2 of the data X holds a value that is not finite");
    X[5] = 3.0;
    CHECK_KERNEL_SVM_REFUSES(svm, "row 2 of the data X has other values: X changed");
    CHECK_EQ_INT(ss_kernel_svm_set_data(svm, &data, y), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, 5 * N), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
    memcpy(fresh, X, sizeof fresh);
    SsData fresh_data;
    REQUIRE(ss_data_init_dense(&fresh_data, SS_DTYPE_FLOAT64, fresh, N, D, D) == SS_OK);
    SsKernelSvm *again = ss_kernel_svm_new(kernel_solvers[k], &kernel, &fresh_data, y, 0.1);
    REQUIRE(again != NULL);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(again, 5 * N), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(again), SS_OK);
    CHECK(ss_kernel_svm_get_statistics(svm)->primal_objective ==
          ss_kernel_svm_get_statistics(again)->primal_objective);
    X[5] = 0.25;
    ss_kernel_svm_delete(svm);
    ss_kernel_svm_delete(again);
  }
}

void test_sgd_rejects_non_binary_labels(void) {
  enum { N = 6, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 10);
  const double bad[3] = {2.0, 0.0, 0.5};
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int k = 0; k < 3; ++k) {
    double yb[N];
    memcpy(yb, y, sizeof yb);
    yb[4] = bad[k];
    SsData data;
    SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, yb, N, D, 0.1);
    REQUIRE(svm != NULL);
    configure(svm, 10 * N, 0);
    CHECK_EQ_INT(ss_svm_set_loss(svm, losses[k]), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_ERR_BAD_DATA);
    CHECK_EQ_INT(ss_svm_get_iteration_number(svm), 0);
    const double *w = ss_svm_get_model(svm);
    CHECK(w[0] == 0.0 && w[1] == 0.0);
    /* Fixing the labels with set_data makes training work. */
    CHECK_EQ_INT(ss_svm_set_data(svm, &data, y), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    ss_svm_delete(svm);
  }
}

/* ------------------------------------------------------------------------ */
/*                          Per-example weights                             */
/* ------------------------------------------------------------------------ */

/* With integer weights c_i, E_c(w, b; lambda) on n rows equals (N/n) times the
 * objective on the data with row i replicated c_i times (N = sum c_i rows)
 * at lambda' = lambda n / N:
 *   (N/n) [lambda n/(2N) R + 1/N sum c_i l_i] = lambda/2 R + 1/n sum c_i l_i. */
void test_weights_equal_replication(void) {
  enum { N = 6, D = 3, NR = 12 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.3, 12);
  const double c[N] = {1, 3, 0, 2, 5, 1}; /* sum = 12 */
  double XR[NR * D], yR[NR];
  int r = 0;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < (int)c[i]; ++k, ++r) {
      memcpy(XR + r * D, X + i * D, D * sizeof(double));
      yR[r] = y[i];
    }
  REQUIRE(r == NR);
  const double lambda = 0.3, B = 1.5, b = 0.2;
  const double w[D] = {0.4, -0.9, 1.1};
  const SsLoss losses[3] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int li = 0; li < 3; ++li) {
    SsData dw, dr;
    SsSvm *sw = tu_new_dense(SS_SOLVER_NONE, &dw, X, y, N, D, lambda);
    SsSvm *sr = tu_new_dense(SS_SOLVER_NONE, &dr, XR, yR, NR, D, lambda * N / NR);
    REQUIRE(sw && sr);
    SsSvm *both[2] = {sw, sr};
    for (int k = 0; k < 2; ++k) {
      ss_svm_set_loss(both[k], losses[li]);
      ss_svm_set_bias_multiplier(both[k], B);
      ss_svm_set_model(both[k], w);
      ss_svm_set_bias(both[k], b);
    }
    CHECK_EQ_INT(ss_svm_set_weights(sw, c), SS_OK);
    CHECK_EQ_INT(ss_svm_train(sw), SS_OK);
    CHECK_EQ_INT(ss_svm_train(sr), SS_OK);
    const SsSvmStatistics *a = ss_svm_get_statistics(sw), *e = ss_svm_get_statistics(sr);
    const double scale = (double)NR / N;
    CHECK_REL(a->objective, scale * e->objective, 1e-12);
    CHECK_REL(a->regularizer, scale * e->regularizer, 1e-12);
    CHECK_REL(a->loss, scale * e->loss, 1e-12);
    CHECK(a->loss > 0);
    ss_svm_delete(sw);
    ss_svm_delete(sr);
  }
}

void test_zero_weight_examples_do_not_move_model(void) {
  /* Two data sets that differ only in examples of weight 0 train to the same
   * model (the visiting order depends only on n and the seed). */
  enum { N = 10, D = 2 };
  double X1[N * D], X2[N * D], y1[N], y2[N], c[N];
  tu_make_blobs(X1, y1, N, D, 0.5, 13);
  memcpy(X2, X1, sizeof X1);
  memcpy(y2, y1, sizeof y1);
  for (int i = 0; i < N; ++i) c[i] = (i == 2 || i == 7) ? 0.0 : 1.0 + 0.5 * (i % 2);
  X2[2 * D + 0] = 40.0;  X2[2 * D + 1] = -13.0; y2[2] = -y1[2];
  X2[7 * D + 0] = -9.0;  X2[7 * D + 1] = 21.0;
  SsData d1, d2;
  SsSvm *a = tu_new_dense(SS_SOLVER_SGD, &d1, X1, y1, N, D, 0.05);
  SsSvm *b = tu_new_dense(SS_SOLVER_SGD, &d2, X2, y2, N, D, 0.05);
  REQUIRE(a && b);
  configure(a, 30 * N + 3, 4);
  configure(b, 30 * N + 3, 4);
  CHECK_EQ_INT(ss_svm_set_weights(a, c), SS_OK);
  CHECK_EQ_INT(ss_svm_set_weights(b, c), SS_OK);
  CHECK_EQ_INT(ss_svm_train(a), SS_OK);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  const double *wa = ss_svm_get_model(a), *wb = ss_svm_get_model(b);
  for (int j = 0; j < D; ++j) CHECK_CLOSE(wa[j], wb[j], 1e-12);
  CHECK_CLOSE(ss_svm_get_bias(a), ss_svm_get_bias(b), 1e-12);
  CHECK(fabs(wa[0]) > 1e-3);
  /* Without the weights the outliers do move the model. */
  CHECK_EQ_INT(ss_svm_set_weights(b, NULL), SS_OK);
  ss_svm_set_iteration_number(b, 0);
  const double zero[D] = {0, 0};
  ss_svm_set_model(b, zero);
  ss_svm_set_bias(b, 0.0);
  CHECK_EQ_INT(ss_svm_train(b), SS_OK);
  CHECK(fabs(ss_svm_get_model(b)[0] - wa[0]) > 1e-3);
  ss_svm_delete(a);
  ss_svm_delete(b);
}

/* ------------------------------------------------------------------------ */
/*                      Stopping rule and statistics                        */
/* ------------------------------------------------------------------------ */

/* The former rule, kept as an option: the scores variation. */
void test_sgd_converges_with_epsilon(void) {
  enum { N = 40, D = 2 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 3.0, 14); /* well separated */
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
  REQUIRE(svm != NULL);
  const int64_t cap = 1000000;
  CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, cap), SS_OK);
  CHECK_EQ_INT(ss_svm_set_stopping_rule(svm, SS_SVM_STOP_SCORES_VARIATION), SS_OK);
  CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-3), SS_OK);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->iteration < cap);
  CHECK(st->iteration > 0);
  CHECK(st->scores_variation < 1e-3);
  /* Every training point is on the right side. */
  const double *sc = ss_svm_get_scores(svm);
  REQUIRE(sc != NULL);
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += y[i] * sc[i] <= 0;
  CHECK_EQ_INT(wrong, 0);
  /* With epsilon 0 the same run goes to the cap. */
  SsSvm *cap_run = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
  REQUIRE(cap_run != NULL);
  configure(cap_run, 50 * N, 0);
  CHECK_EQ_INT(ss_svm_train(cap_run), SS_OK);
  CHECK_EQ_INT(ss_svm_get_statistics(cap_run)->status, SS_SVM_STATUS_MAX_ITERATIONS);
  CHECK_EQ_INT(ss_svm_get_statistics(cap_run)->iteration, 50 * N);
  ss_svm_delete(svm);
  ss_svm_delete(cap_run);
}

void test_sgd_statistics_consistent(void) {
  enum { N = 7, D = 3 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 15);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.05);
  REQUIRE(svm != NULL);
  configure(svm, 1, 0);
  const int64_t steps[5] = {3, 4, 10, 1, 23};
  int64_t total = 0;
  for (int k = 0; k < 5; ++k) {
    ss_svm_set_max_num_iterations(svm, steps[k]);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    total += steps[k];
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->iteration, total);
    CHECK_EQ_INT(ss_svm_get_iteration_number(svm), total);
    CHECK_EQ_INT(st->epoch, total / N);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
    CHECK_CLOSE(st->objective, st->regularizer + st->loss, 1e-12);
    double reg, lo;
    double e = tu_objective(X, N, D, D, y, ss_svm_get_model(svm), ss_svm_get_bias(svm), 1.0,
                            0.05, SS_LOSS_HINGE, NULL, &reg, &lo);
    CHECK_REL(st->objective, e, 1e-12);
    CHECK_REL(st->regularizer, reg, 1e-12);
    CHECK(isnan(st->dual_objective));
    CHECK(isnan(st->duality_gap));
    CHECK(st->elapsed_time >= 0 && isfinite(st->elapsed_time));
    const double *sc = ss_svm_get_scores(svm);
    REQUIRE(sc != NULL);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(sc[i], ss_data_inner_product(&data, i, ss_svm_get_model(svm)) +
                             ss_svm_get_bias(svm), 1e-12);
  }
  ss_svm_delete(svm);
}
