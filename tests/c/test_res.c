/* test_res.c -- RES and LRES (res.h): setters and their rejections, the
 * differentiable-loss rule, the curvature floor (Bhat - delta I positive
 * semidefinite), textbook BFGS at delta = Gamma = 0, convergence to the
 * optimum certified by SDCA's duality gap, split training, state errors. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/res.h"
#include "testutil.h"
#include "../../src/core/linear/res_steps.h"

/* Cholesky of a copy of A - shift I (D x D); 1 if it succeeds (A - shift I is
 * positive definite), written here independently of the core. */
static int shifted_cholesky_ok(const double *A, int D, double shift) {
  double *G = malloc((size_t)(D * D) * sizeof(double));
  int ok = G != NULL;
  if (G) memcpy(G, A, (size_t)(D * D) * sizeof(double));
  for (int j = 0; ok && j < D; ++j) {
    double s = G[j * D + j] - shift;
    for (int k = 0; k < j; ++k) s -= G[j * D + k] * G[j * D + k];
    if (!(s > 0)) { ok = 0; break; }
    G[j * D + j] = sqrt(s);
    for (int i = j + 1; i < D; ++i) {
      double t = G[i * D + j];
      for (int k = 0; k < j; ++k) t -= G[i * D + k] * G[j * D + k];
      G[i * D + j] = t / G[j * D + j];
    }
  }
  free(G);
  return ok;
}

void test_res_setters(void) {
  enum { N = 20, D = 3 };
  double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 1.0, 1);
  SsSvm *svm = tu_new_dense(SS_SOLVER_LRES, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  CHECK_EQ_INT(ss_svm_get_res_minibatch_size(svm), 5);
  /* b0 = delta + lambda + 2 mean ||x~||^2 / (d + 1) (the squared hinge's
   * curvature bound 2), Gamma = 1e-4 / b0 */
  double mean_norm2 = 0;
  const double B = ss_svm_get_bias_multiplier(svm);
  for (int i = 0; i < N * D; ++i) mean_norm2 += X[i] * X[i] / N;
  const double b0 = 1e-3 + 0.1 + 2 * (mean_norm2 + B * B) / (D + 1);
  CHECK_CLOSE(ss_svm_get_res_initial_curvature(svm), b0, 1e-12 * b0);
  CHECK_CLOSE(ss_svm_get_res_gamma(svm), 1e-4 / b0, 1e-12 / b0);
  CHECK(ss_svm_get_res_delta(svm) == 1e-3);
  CHECK(ss_svm_get_res_eps0(svm) == 0.1 && ss_svm_get_res_tau(svm) == 100.0);
  CHECK_EQ_INT(ss_svm_get_lres_memory(svm), 10);
  CHECK(ss_svm_get_loss(svm) == SS_LOSS_HINGE2);

  CHECK(ss_svm_set_res_minibatch_size(svm, 0) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_minibatch_size(svm, -1) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_delta(svm, -1e-9) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_delta(svm, NAN) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_delta(svm, INFINITY) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_gamma(svm, -1) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_gamma(svm, NAN) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_eps0(svm, 0) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_eps0(svm, INFINITY) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_tau(svm, 0) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_tau(svm, NAN) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_initial_curvature(svm, 0) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_initial_curvature(svm, NAN) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_lres_memory(svm, 0) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_res_minibatch_size(NULL, 3) == SS_ERR_BAD_ARG);
  /* unchanged */
  CHECK_EQ_INT(ss_svm_get_res_minibatch_size(svm), 5);
  CHECK(ss_svm_get_res_delta(svm) == 1e-3);
  CHECK_CLOSE(ss_svm_get_res_gamma(svm), 1e-4 / b0, 1e-12 / b0);
  CHECK(ss_svm_get_res_eps0(svm) == 0.1 && ss_svm_get_res_tau(svm) == 100.0);
  CHECK_EQ_INT(ss_svm_get_lres_memory(svm), 10);

  CHECK(ss_svm_set_res_tau(svm, INFINITY) == SS_OK && isinf(ss_svm_get_res_tau(svm)));
  CHECK(ss_svm_set_res_delta(svm, 0) == SS_OK && ss_svm_get_res_delta(svm) == 0);
  CHECK(ss_svm_set_res_minibatch_size(svm, 7) == SS_OK && ss_svm_get_res_minibatch_size(svm) == 7);
  CHECK(ss_svm_set_lres_memory(svm, 3) == SS_OK && ss_svm_get_lres_memory(svm) == 3);
  CHECK_EQ_INT(ss_svm_get_res_curvature_state_size(svm), 1 + 2 * 3 * (D + 1));

  /* the hinge and l1 losses are not differentiable */
  CHECK(ss_svm_set_loss(svm, SS_LOSS_HINGE) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_set_loss(svm, SS_LOSS_L1) == SS_ERR_BAD_ARG);
  CHECK(ss_svm_get_loss(svm) == SS_LOSS_HINGE2);
  CHECK(ss_svm_set_loss(svm, SS_LOSS_LOGISTIC) == SS_OK);
  ss_svm_delete(svm);

  /* other solvers refuse the setters (naming the solvers) and have no curvature state */
  svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  double state[16];
  CHECK(ss_svm_set_res_delta(svm, 0.5) == SS_ERR_BAD_STATE);
  CHECK(strcmp(ss_svm_get_last_error(svm), "set_res_delta applies to solvers res and lres, this object's solver is sgd") == 0);
  CHECK(ss_svm_set_lres_memory(svm, 3) == SS_ERR_BAD_STATE);
  CHECK(ss_svm_reset_res_curvature(svm) == SS_ERR_BAD_STATE);
  CHECK_EQ_INT(ss_svm_get_res_curvature_state_size(svm), 0);
  CHECK(ss_svm_get_res_curvature_state(svm, state) == SS_ERR_BAD_STATE);
  CHECK(ss_svm_set_res_curvature_state(svm, state) == SS_ERR_BAD_STATE);
  CHECK(ss_svm_set_loss(svm, SS_LOSS_HINGE) == SS_OK);
  ss_svm_delete(svm);
}

void test_res_curvature_floor(void) {
  enum { N = 400, D = 5, DD = D + 1 };
  static double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 0.5, 7);
  const double deltas[2] = {1e-3, 1.0}; /* the second exceeds the curvature: skips */
  for (int k = 0; k < 2; ++k) {
    SsSvm *svm = tu_new_dense(SS_SOLVER_RES, &data, X, y, N, D, 1e-2);
    REQUIRE(svm != NULL);
    ss_svm_set_res_delta(svm, deltas[k]);
    ss_svm_set_max_num_iterations(svm, 50);
    ss_svm_set_epsilon(svm, 0);
    double B[DD * DD];
    int floor_ok = 1, symmetric = 1;
    for (int round = 0; round < 40; ++round) {
      CHECK(ss_svm_train(svm) == SS_OK);
      REQUIRE(ss_svm_get_res_curvature_state(svm, B) == SS_OK);
      floor_ok &= shifted_cholesky_ok(B, DD, deltas[k] * (1 - 1e-9));
      for (int i = 0; i < DD; ++i)
        for (int j = 0; j < DD; ++j) symmetric &= B[i * DD + j] == B[j * DD + i];
    }
    CHECK(floor_ok);
    CHECK(symmetric);
    CHECK(ss_svm_get_res_num_curvature_updates(svm) > 100);
    CHECK_EQ_INT(ss_svm_get_res_num_curvature_restarts(svm), 0);
    if (k == 1) CHECK(ss_svm_get_res_num_curvature_skips(svm) > 0);
    ss_svm_delete(svm);
  }
}

/* delta = Gamma = 0, L = n, unit step, l2 loss without bias: textbook BFGS
 * on the quadratic lambda/2 ||w||^2 + 1/n ||X w - y||^2. */
void test_res_textbook_bfgs(void) {
  enum { N = 30, D = 3, DD = D + 1 };
  double X[N * D], y[N];
  TuRng rng;
  tu_rng_init(&rng, 5);
  for (int i = 0; i < N * D; ++i) X[i] = tu_rng_uniform(&rng) - 0.5;
  for (int i = 0; i < N; ++i) y[i] = 2 * tu_rng_uniform(&rng) - 1;
  const double lambda = 0.1;
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_RES, &data, X, y, N, D, lambda);
  REQUIRE(svm != NULL);
  REQUIRE(ss_svm_set_loss(svm, SS_LOSS_L2) == SS_OK);
  ss_svm_set_bias_multiplier(svm, 0);
  ss_svm_set_res_delta(svm, 0);
  ss_svm_set_res_gamma(svm, 0);
  ss_svm_set_res_eps0(svm, 1);
  ss_svm_set_res_tau(svm, INFINITY);
  ss_svm_set_res_minibatch_size(svm, N);
  ss_svm_set_res_initial_curvature(svm, 2.0);
  ss_svm_set_max_num_iterations(svm, N);
  ss_svm_set_epsilon(svm, 0);

  double w[D] = {0}, Bm[D][D] = {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}};
  for (int step = 0; step < 5; ++step) {
    double g[D], gn[D], wn[D], s[D], r[D], Bs[D], p[D], M[D][D + 1];
    for (int a = 0; a < D; ++a) {
      g[a] = lambda * w[a];
      for (int i = 0; i < N; ++i) {
        double res = -y[i];
        for (int b = 0; b < D; ++b) res += X[i * D + b] * w[b];
        g[a] += 2.0 / N * res * X[i * D + a];
      }
    }
    /* p = B^{-1} g by Gauss-Jordan on [B | g] */
    for (int a = 0; a < D; ++a) {
      for (int b = 0; b < D; ++b) M[a][b] = Bm[a][b];
      M[a][D] = g[a];
    }
    for (int c = 0; c < D; ++c) {
      for (int a = 0; a < D; ++a) {
        if (a == c) continue;
        double f = M[a][c] / M[c][c];
        for (int b = 0; b <= D; ++b) M[a][b] -= f * M[c][b];
      }
    }
    for (int a = 0; a < D; ++a) p[a] = M[a][D] / M[a][a];
    for (int a = 0; a < D; ++a) wn[a] = w[a] - p[a];
    for (int a = 0; a < D; ++a) {
      gn[a] = lambda * wn[a];
      for (int i = 0; i < N; ++i) {
        double res = -y[i];
        for (int b = 0; b < D; ++b) res += X[i * D + b] * wn[b];
        gn[a] += 2.0 / N * res * X[i * D + a];
      }
    }
    double sr = 0, sBs = 0;
    for (int a = 0; a < D; ++a) {
      s[a] = wn[a] - w[a];
      r[a] = gn[a] - g[a];
      sr += s[a] * r[a];
    }
    for (int a = 0; a < D; ++a) {
      Bs[a] = 0;
      for (int b = 0; b < D; ++b) Bs[a] += Bm[a][b] * s[b];
      sBs += s[a] * Bs[a];
    }
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) Bm[a][b] += r[a] * r[b] / sr - Bs[a] * Bs[b] / sBs;
    memcpy(w, wn, sizeof w);

    REQUIRE(ss_svm_train(svm) == SS_OK);
    const double *model = ss_svm_get_model(svm);
    double state[DD * DD];
    REQUIRE(ss_svm_get_res_curvature_state(svm, state) == SS_OK);
    for (int a = 0; a < D; ++a) {
      CHECK_CLOSE(model[a], w[a], 1e-10 * (1 + fabs(w[a])));
      for (int b = 0; b < D; ++b) CHECK_CLOSE(state[a * DD + b], Bm[a][b], 1e-9 * (1 + fabs(Bm[a][b])));
    }
    CHECK(state[D * DD + D] == 2.0);
  }
  ss_svm_delete(svm);
}

/* RES and LRES reach the optimum of the squared hinge and logistic objectives
 * (with a bias), certified by SDCA's duality gap. */
void test_res_lres_reach_optimum(void) {
  enum { N = 200, D = 4 };
  static double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 0.6, 3);
  const double lambda = 1e-2;
  const SsLoss losses[2] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int l = 0; l < 2; ++l) {
    SsSvm *ref = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, N, D, lambda);
    REQUIRE(ref != NULL);
    ss_svm_set_loss(ref, losses[l]);
    ss_svm_set_epsilon(ref, 1e-12);
    ss_svm_set_max_num_iterations(ref, 1000 * N);
    REQUIRE(ss_svm_train(ref) == SS_OK);
    const double f_star = ss_svm_get_statistics(ref)->objective;
    CHECK(ss_svm_get_statistics(ref)->duality_gap < 1e-10);
    ss_svm_delete(ref);
    const SsSolver solvers[2] = {SS_SOLVER_RES, SS_SOLVER_LRES};
    for (int s = 0; s < 2; ++s) {
      SsSvm *svm = tu_new_dense(solvers[s], &data, X, y, N, D, lambda);
      REQUIRE(svm != NULL);
      ss_svm_set_loss(svm, losses[l]);
      ss_svm_set_res_minibatch_size(svm, N / 2);
      ss_svm_set_res_delta(svm, lambda / 2);
      ss_svm_set_res_eps0(svm, 1.0);
      ss_svm_set_res_tau(svm, 10.0);
      ss_svm_set_epsilon(svm, 0);
      ss_svm_set_max_num_iterations(svm, 300 * N);
      REQUIRE(ss_svm_train(svm) == SS_OK);
      const double f = ss_svm_get_statistics(svm)->objective;
      CHECK(f >= f_star * (1 - 1e-12));
      CHECK_REL(f, f_star, 1e-3);
      ss_svm_delete(svm);
    }
  }
}

/* The exact minimiser of lambda/2 ||w~||^2 + 1/n sum max(0, 1 - y <w~, x~>)^2,
 * x~ = (x, 1), by generalised Newton (piecewise quadratic: exact in a few
 * steps); false if the gradient does not vanish. */
static bool squared_hinge_optimum(const double *X, const double *y, int n, int d, double lambda,
                                  double *f_star)
{
  enum { M = 8 };
  const int D = d + 1;
  double w[M] = {0}, H[M * M], g[M];
  if (D > M) return false;
  for (int iter = 0; iter < 100; ++iter) {
    double f = 0, gnorm = 0;
    for (int j = 0; j < D; ++j) {
      g[j] = lambda * w[j];
      f += 0.5 * lambda * w[j] * w[j];
      for (int k = 0; k < D; ++k) H[j * D + k] = j == k ? lambda : 0;
    }
    for (int i = 0; i < n; ++i) {
      double s = w[d];
      for (int j = 0; j < d; ++j) s += w[j] * X[i * d + j];
      const double r = 1 - y[i] * s;
      if (r <= 0) continue;
      f += r * r / n;
      for (int j = 0; j < D; ++j) {
        const double xj = j < d ? X[i * d + j] : 1.0;
        g[j] -= 2 * y[i] * r * xj / n;
        for (int k = 0; k < D; ++k) H[j * D + k] += 2 * xj * (k < d ? X[i * d + k] : 1.0) / n;
      }
    }
    for (int j = 0; j < D; ++j) gnorm += g[j] * g[j];
    *f_star = f;
    if (gnorm < 1e-24) return true;
    for (int c = 0; c < D; ++c) { /* H p = g by Gaussian elimination (H is SPD) */
      for (int r = c + 1; r < D; ++r) {
        const double m = H[r * D + c] / H[c * D + c];
        for (int k = c; k < D; ++k) H[r * D + k] -= m * H[c * D + k];
        g[r] -= m * g[c];
      }
    }
    for (int r = D - 1; r >= 0; --r) {
      double sum = g[r];
      for (int k = r + 1; k < D; ++k) sum -= H[r * D + k] * g[k];
      g[r] = sum / H[r * D + r];
      w[r] -= g[r];
    }
  }
  return false;
}

/* Defaults on features of scales 1e-2 .. 1e2 (the Jacobi Bhat_0), and an
 * explicit eps0 far too long (the step safeguard and the ball). */
void test_res_defaults_on_wide_scales(void) {
  enum { N = 300, D = 5 };
  static double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 0.6, 5);
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < D; ++j) X[i * D + j] *= pow(10.0, -2 + j);
  }
  const double lambda = 1.0 / N;
  double f_star;
  REQUIRE(squared_hinge_optimum(X, y, N, D, lambda, &f_star));
  const SsSolver solvers[2] = {SS_SOLVER_RES, SS_SOLVER_LRES};
  for (int s = 0; s < 2; ++s) {
    SsSvm *svm = tu_new_dense(solvers[s], &data, X, y, N, D, lambda);
    REQUIRE(svm != NULL);
    ss_svm_set_epsilon(svm, 0);
    ss_svm_set_max_num_iterations(svm, 20 * N);
    REQUIRE(ss_svm_train(svm) == SS_OK);
    const double f = ss_svm_get_statistics(svm)->objective;
    CHECK(f >= f_star * (1 - 1e-12) && f <= 1.5 * f_star);
    ss_svm_delete(svm);

    svm = tu_new_dense(solvers[s], &data, X, y, N, D, lambda);
    REQUIRE(svm != NULL);
    CHECK(ss_svm_set_res_eps0(svm, 1e3) == SS_OK && ss_svm_get_res_eps0(svm) == 1e3);
    ss_svm_set_epsilon(svm, 0);
    ss_svm_set_max_num_iterations(svm, 5 * N);
    REQUIRE(ss_svm_train(svm) == SS_OK);
    CHECK(ss_svm_get_res_num_step_halvings(svm) > 0);
    const double *w = ss_svm_get_model(svm), b = ss_svm_get_bias(svm);
    double norm2 = b * b; /* bias multiplier 1: w_b = b */
    for (int j = 0; j < D; ++j) norm2 += w[j] * w[j];
    CHECK(norm2 <= 2.0 / lambda * (1 + 1e-12)); /* F(0) = 1 */
    CHECK(isfinite(ss_svm_get_statistics(svm)->objective));
    ss_svm_delete(svm);
  }
}

void test_res_lres_split_equals_whole(void) {
  enum { N = 103, D = 4, DD = D + 1 };
  static double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 0.5, 9);
  const SsSolver solvers[2] = {SS_SOLVER_RES, SS_SOLVER_LRES};
  for (int s = 0; s < 2; ++s) {
    SsSvm *a = tu_new_dense(solvers[s], &data, X, y, N, D, 1e-2);
    SsSvm *b = tu_new_dense(solvers[s], &data, X, y, N, D, 1e-2);
    REQUIRE(a && b);
    ss_svm_set_seed(a, 4);
    ss_svm_set_seed(b, 4);
    ss_svm_set_epsilon(a, 0);
    ss_svm_set_epsilon(b, 0);
    ss_svm_set_diagnostic_frequency(a, 37);
    ss_svm_set_diagnostic_frequency(b, 37);
    ss_svm_set_max_num_iterations(a, 611);
    CHECK(ss_svm_train(a) == SS_OK);
    ss_svm_set_max_num_iterations(b, 300);
    CHECK(ss_svm_train(b) == SS_OK);
    ss_svm_set_max_num_iterations(b, 311);
    CHECK(ss_svm_train(b) == SS_OK);
    CHECK(tu_same_bits(ss_svm_get_model(a), ss_svm_get_model(b), D));
    CHECK(ss_svm_get_bias(a) == ss_svm_get_bias(b));
    CHECK_EQ_INT(ss_svm_get_iteration_number(b), 611);
    int64_t size = ss_svm_get_res_curvature_state_size(a);
    double *sa = malloc((size_t)size * sizeof(double)), *sb = malloc((size_t)size * sizeof(double));
    REQUIRE(sa && sb);
    ss_svm_get_res_curvature_state(a, sa);
    ss_svm_get_res_curvature_state(b, sb);
    CHECK(tu_same_bits(sa, sb, size));
    free(sa);
    free(sb);
    ss_svm_delete(a);
    ss_svm_delete(b);
  }
}

void test_res_state_errors(void) {
  enum { N = 20, D = 2, DD = D + 1 };
  double X[N * D], y[N];
  SsData data;
  tu_make_blobs(X, y, N, D, 1.0, 1);
  SsSvm *svm = tu_new_dense(SS_SOLVER_RES, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  double B[DD * DD] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, got[DD * DD];
  CHECK(ss_svm_set_res_curvature_state(svm, NULL) == SS_ERR_BAD_ARG);
  B[1] = 0.5; /* not symmetric */
  CHECK(ss_svm_set_res_curvature_state(svm, B) == SS_ERR_BAD_ARG);
  B[3] = 0.5;
  B[4] = 0.1; /* symmetric, not positive definite: 2 * 0.1 < 0.5^2 */
  CHECK(ss_svm_set_res_curvature_state(svm, B) == SS_ERR_BAD_ARG);
  B[8] = NAN;
  CHECK(ss_svm_set_res_curvature_state(svm, B) == SS_ERR_BAD_ARG);
  /* Bhat_0 = diag(delta + lambda + 2 mean_i x~_ij^2), bias multiplier 1 */
  double b00 = 0;
  for (int i = 0; i < N; ++i) b00 += 2 * X[i * D] * X[i * D] / N;
  b00 += 1e-3 + 0.1;
  const double bias_b0 = 1e-3 + 0.1 + 2 * ss_svm_get_bias_multiplier(svm) * ss_svm_get_bias_multiplier(svm);
  CHECK(ss_svm_get_res_curvature_state(svm, got) == SS_OK);
  CHECK_CLOSE(got[0], b00, 1e-12 * b00);
  CHECK(got[1] == 0 && got[8] == bias_b0); /* still Bhat_0 */
  B[4] = 2.0;
  B[8] = 3.0;
  CHECK(ss_svm_set_res_curvature_state(svm, B) == SS_OK);
  CHECK(ss_svm_get_res_curvature_state(svm, got) == SS_OK && tu_same_bits(got, B, DD * DD));
  CHECK(ss_svm_reset_res_curvature(svm) == SS_OK);
  CHECK(ss_svm_get_res_curvature_state(svm, got) == SS_OK && got[1] == 0 && got[8] == bias_b0);
  /* b0 must exceed delta when training starts from Bhat_0 */
  ss_svm_set_res_initial_curvature(svm, 0.5);
  ss_svm_set_res_delta(svm, 0.5);
  CHECK(ss_svm_train(svm) == SS_ERR_BAD_ARG);
  ss_svm_delete(svm);
  /* ... a b0 set by the caller: the data-derived one, delta + lambda + ...,
   * rounds to delta next to a huge delta and is not refused (fuzz_train) */
  svm = tu_new_dense(SS_SOLVER_RES, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  ss_svm_set_res_delta(svm, 1e30);
  CHECK(ss_svm_get_res_initial_curvature(svm) == ss_svm_get_res_delta(svm));
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  CHECK(isfinite(ss_svm_get_statistics(svm)->objective));
  ss_svm_delete(svm);

  svm = tu_new_dense(SS_SOLVER_LRES, &data, X, y, N, D, 0.1);
  REQUIRE(svm != NULL);
  ss_svm_set_lres_memory(svm, 2);
  double S[1 + 2 * 2 * DD] = {0};
  S[0] = 2.5; /* not an integer */
  CHECK(ss_svm_set_res_curvature_state(svm, S) == SS_ERR_BAD_ARG);
  S[0] = 1;
  S[1] = 1;
  S[1 + 2 * DD] = -1; /* v^T r < 0 */
  CHECK(ss_svm_set_res_curvature_state(svm, S) == SS_ERR_BAD_ARG);
  S[1 + 2 * DD] = 3;
  CHECK(ss_svm_set_res_curvature_state(svm, S) == SS_OK);
  double T[1 + 2 * 2 * DD];
  CHECK(ss_svm_get_res_curvature_state(svm, T) == SS_OK && tu_same_bits(S, T, 1 + 4 * DD));
  CHECK(ss_svm_train(svm) == SS_OK);
  ss_svm_delete(svm);
}

/* Found by fuzzing: near INT64_MAX the end of the last minibatch overflowed
 * (signed overflow, caught by UBSan). Both solvers run up to INT64_MAX (a
 * train call needs room for its whole cap: test_iteration_room.c). */
void test_res_huge_iteration_number(void) {
  enum { N = 30, D = 3 };
  static double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 12);
  const SsSolver solvers[2] = {SS_SOLVER_RES, SS_SOLVER_LRES};
  for (int k = 0; k < 2; ++k) {
    SsData data;
    SsSvm *svm = tu_new_dense(solvers[k], &data, X, y, N, D, 0.01);
    REQUIRE(svm);
    CHECK_EQ_INT(ss_svm_set_iteration_number(svm, INT64_MAX - 100), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 100), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    CHECK_EQ_INT(ss_svm_get_iteration_number(svm), INT64_MAX);
    CHECK(isfinite(ss_svm_get_statistics(svm)->objective));
    ss_svm_delete(svm);
  }
}

/* Found by fuzzing: RES on tens of thousands of features asked for a
 * d^2 matrix of gigabytes. RES refuses d > SS_RES_MAX_DIMENSION without
 * allocating; LRES trains there; LRES memory is bounded. */
void test_res_dimension_limits(void) {
  enum { N = 4, D = SS_RES_MAX_DIMENSION + 1 };
  static double X[N * D], y[N] = {1, -1, 1, -1};
  for (int i = 0; i < N; ++i) X[i * D + i] = y[i];
  for (int k = 0; k < 2; ++k) {
    const int64_t d = k == 0 ? D : D - 1;
    SsData data;
    REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, d, D) == SS_OK);
    SsSvm *res = ss_svm_new(SS_SOLVER_RES, &data, y, 0.1);
    REQUIRE(res);
    ss_svm_set_max_num_iterations(res, 10);
    CHECK_EQ_INT(ss_svm_train(res), k == 0 ? SS_ERR_ALLOC : SS_OK);
    ss_svm_delete(res);
  }
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, N, D, D) == SS_OK);
  SsSvm *lres = ss_svm_new(SS_SOLVER_LRES, &data, y, 0.1);
  REQUIRE(lres);
  CHECK_EQ_INT(ss_svm_set_lres_memory(lres, SS_LRES_MAX_MEMORY + 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_lres_memory(lres, SS_LRES_MAX_MEMORY), SS_OK);
  ss_svm_set_max_num_iterations(lres, 10);
  CHECK_EQ_INT(ss_svm_train(lres), SS_OK);
  ss_svm_delete(lres);
}

/* ---- the step back-off (run.c, res_steps.c) ------------------------------ */

/* Binary features, feature j on with probability 0.3 / (1 + j)^1.2 (a few
 * common, many rare: w8a's kind), labels from a random linear rule. */
static void power_law_binary(double *X, double *y, int n, int d, uint64_t seed) {
  TuRng rng;
  tu_rng_init(&rng, seed);
  double w[128];
  REQUIRE(d <= 128);
  for (int j = 0; j < d; ++j) w[j] = 6.0 * tu_rng_uniform(&rng) - 3.0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < d; ++j) {
      X[i * d + j] = tu_rng_uniform(&rng) < 0.3 / pow(1.0 + j, 1.2) ? 1.0 : 0.0;
      s += w[j] * X[i * d + j];
    }
    s += tu_rng_uniform(&rng) - 0.5;
    y[i] = s > 0 ? 1.0 : -1.0;
  }
}

/* LRES at C = 1e3 on such data: at the default eps0 the objective rises
 * above the zero model's (1, the squared hinge at s = 0) and the run ends
 * there, 1.6, unless the back-off restarts it from w = 0 with eps0 / 10:
 * then it ends below 0.6. The same eps0 set by the caller takes no
 * back-off. */
void test_res_lres_backs_off(void) {
  enum { N = 1000, D = 100 };
  static double X[N * D], y[N];
  power_law_binary(X, y, N, D, 7);
  double objective[2];
  for (int set = 0; set < 2; ++set) {
    SsData data;
    SsSvm *svm = tu_new_dense(SS_SOLVER_LRES, &data, X, y, N, D, 1.0 / (1e3 * N));
    REQUIRE(svm != NULL);
    CHECK_EQ_INT(ss_svm_set_epsilon(svm, 1e-3), SS_OK);
    CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 30 * N), SS_OK);
    if (set) CHECK_EQ_INT(ss_svm_set_res_eps0(svm, ss_svm_get_res_eps0(svm)), SS_OK);
    CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->num_step_backoffs, set ? 0 : 1);
    objective[set] = st->objective;
    CHECK(isfinite(st->objective));
    const double reference = tu_objective(X, N, D, D, y, ss_svm_get_model(svm), ss_svm_get_bias(svm), 1.0,
                                          1.0 / (1e3 * N), SS_LOSS_HINGE2, NULL, NULL, NULL);
    CHECK(fabs(reference - st->objective) <= 1e-9 * reference);
    CHECK(ss_svm_get_res_eps0(svm) == 0.1); /* the default, as before */
    ss_svm_delete(svm);
  }
  CHECK(objective[0] < 0.6);
  CHECK(objective[1] > 1.0);
}

/* The op itself, on RES and LRES trained a few epochs: w = 0 and b = 0, the
 * curvature back at Bhat_0 (RES) or no pairs (LRES), counted; training then
 * goes on from there to a finite objective below the zero model's. At an
 * eps0 set by the caller it changes nothing. */
void test_res_back_off_op(void) {
  enum { N = 200, D = 6, DD = D + 1, SIZE = 1 + 2 * 10 * DD };
  static double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.5, 3);
  const SsSolver solvers[2] = {SS_SOLVER_RES, SS_SOLVER_LRES};
  for (int s = 0; s < 2; ++s) {
    for (int set = 0; set < 2; ++set) {
      SsData data;
      SsSvm *fresh = tu_new_dense(solvers[s], &data, X, y, N, D, 1e-3);
      SsSvm *svm = tu_new_dense(solvers[s], &data, X, y, N, D, 1e-3);
      REQUIRE(fresh != NULL && svm != NULL);
      if (set) CHECK_EQ_INT(ss_svm_set_res_eps0(svm, 0.1), SS_OK);
      CHECK_EQ_INT(ss_svm_set_max_num_iterations(svm, 3 * N), SS_OK);
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const int64_t size = ss_svm_get_res_curvature_state_size(svm);
      REQUIRE(size <= SIZE);
      double before[SIZE], after[SIZE], initial[SIZE];
      CHECK_EQ_INT(ss_svm_get_res_curvature_state(svm, before), SS_OK);
      CHECK_EQ_INT(ss_svm_get_res_curvature_state(fresh, initial), SS_OK);
      CHECK(!tu_same_bits(before, initial, size)); /* it learned some curvature */

      SsEpochRun epoch_run = {.svm = svm, .back_off = ss_res_back_off};
      SsRun run = ss_svm_run(svm, &epoch_run);
      CHECK(run.ops->back_off(run.object) == !set);
      CHECK_EQ_INT(ss_svm_get_res_curvature_state(svm, after), SS_OK);
      CHECK_EQ_INT(svm->step_backoffs, set ? 0 : 1);
      if (set) {
        CHECK(tu_same_bits(after, before, size));
      } else {
        CHECK(tu_same_bits(after, initial, size));
        const double *w = ss_svm_get_model(svm);
        for (int j = 0; j < D; ++j) CHECK(w[j] == 0);
        CHECK(ss_svm_get_bias(svm) == 0);
        /* the schedule restarts at the present step (3 epochs of 40 steps), 10x shorter */
        CHECK(fabs(ss_res_step_size(svm, 120) - 0.01) <= 1e-15);
        CHECK(fabs(ss_res_step_size(svm, 220) - 0.005) <= 1e-15);
        CHECK(ss_res_step_size(svm, 0) == ss_res_step_size(svm, 120)); /* never older than 0 */
      }
      CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
      const double objective = ss_svm_get_statistics(svm)->objective;
      CHECK(isfinite(objective) && objective < 1.0);
      /* an eps0 set after a back-off is the caller's, as given */
      CHECK_EQ_INT(ss_svm_set_res_eps0(svm, 0.2), SS_OK);
      CHECK(fabs(ss_res_step_size(svm, 300) - 0.2 * 100.0 / 400.0) <= 1e-15);
      ss_svm_delete(svm);
      ss_svm_delete(fresh);
    }
  }
}
