/* test_sdca_newton.c -- SDCA's Newton fallback (newton.c): on an
 * ill-conditioned problem where SDCA stops on its cap far above the optimum,
 * the smooth losses continue to a certified optimum. The certificate is
 * recomputed here from the dual variables the object leaves (the
 * primal-dual map of its model), with the conjugates written out by hand;
 * l2 is checked against the closed form. Dense = CSR, float32, bit-for-bit
 * repeats, per-example weights, refusals; run under ASan for the frees. */
#include <math.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/sdca.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { NN = 80, ND = 4 };

/* Columns of scale 1024, 1, 1/128 and 1 (powers of two and multiples of
 * 1/64 before scaling: exact in float32); the label follows the small
 * column, so the dual steps move along the large one only. */
static void make_ill_conditioned(double *X, double *y, double *target) {
  TuRng rng;
  tu_rng_init(&rng, 29);
  const double scale[ND] = {1024.0, 1.0, 1.0 / 128, 1.0};
  for (int i = 0; i < NN; ++i) {
    y[i] = (i % 2) ? 1.0 : -1.0;
    for (int j = 0; j < ND; ++j) X[i * ND + j] = scale[j] * floor(64 * (tu_rng_uniform(&rng) - 0.5)) / 64;
    X[i * ND + 2] += scale[2] * (i % 2 ? 0.25 : -0.25);
    target[i] = 3 * X[i * ND + 1] + 100 * X[i * ND + 2] + 0.5;
  }
}

static const double LAMBDA = 1.0 / (1e4 * NN);

static SsSvm *new_run(SsData *data, const double *y, SsLoss loss, int epochs, int fallback, const double *weights) {
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, data, y, LAMBDA);
  if (!svm) return NULL;
  if (ss_svm_set_loss(svm, loss) != SS_OK || ss_svm_set_epsilon(svm, 1e-6) != SS_OK ||
      ss_svm_set_max_num_iterations(svm, (int64_t)epochs * NN) != SS_OK ||
      ss_svm_set_newton_fallback(svm, fallback) != SS_OK ||
      (weights && ss_svm_set_weights(svm, weights) != SS_OK)) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

static double xlogx(double x) { return x > 0 ? x * log(x) : 0; }

/* D(alpha) of the object's dual variables, written independently of the
 * core: -lambda/2 ||v||^2 - 1/n sum_i c_i loss*(-alpha_i / c_i), v = 1/(lambda n)
 * sum_i alpha_i (x_i, 1). */
static double dual_of(const SsSvm *svm, const double *X, const double *y, SsLoss loss, const double *weights) {
  const double *alpha = ss_svm_get_dual_variables(svm);
  double v[ND + 1] = {0}, conjugates = 0;
  for (int i = 0; i < NN; ++i) {
    const double c = weights ? weights[i] : 1.0, u = -alpha[i] / c;
    for (int j = 0; j < ND; ++j) v[j] += alpha[i] * X[i * ND + j] / (LAMBDA * NN);
    v[ND] += alpha[i] / (LAMBDA * NN);
    const double beta = -y[i] * u;
    if (loss == SS_LOSS_HINGE2) conjugates += c * (-beta + 0.25 * beta * beta);
    else if (loss == SS_LOSS_LOGISTIC) conjugates += c * (xlogx(beta) + xlogx(1 - beta));
    else conjugates += c * (y[i] * u + 0.25 * u * u);
  }
  double v2 = 0;
  for (int j = 0; j <= ND; ++j) v2 += v[j] * v[j];
  return -0.5 * LAMBDA * v2 - conjugates / NN;
}

static double primal_of(const SsSvm *svm, const double *X, const double *y, SsLoss loss, const double *weights) {
  return tu_objective(X, NN, ND, ND, y, ss_svm_get_model(svm), ss_svm_get_bias(svm), 1.0, LAMBDA, loss, weights,
                      NULL, NULL);
}

void test_sdca_newton_reaches_a_certified_optimum(void) {
  static double X[NN * ND], y[NN], target[NN], weights[NN];
  make_ill_conditioned(X, y, target);
  for (int i = 0; i < NN; ++i) weights[i] = 0.5 + (i % 3);
  const SsLoss losses[3] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC, SS_LOSS_L2};
  for (int l = 0; l < 3; ++l) {
    for (int weighted = 0; weighted < 2; ++weighted) {
      const double *labels = losses[l] == SS_LOSS_L2 ? target : y;
      const double *c = weighted ? weights : NULL;
      SsData data;
      CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, NN, ND, ND) == SS_OK);
      SsSvm *off = new_run(&data, labels, losses[l], 20, 0, c);
      SsSvm *on = new_run(&data, labels, losses[l], 20, 1, c);
      CHECK(off && on);
      if (!off || !on) {
        ss_svm_delete(off);
        ss_svm_delete(on);
        continue;
      }
      CHECK(ss_svm_train(off) == SS_OK);
      CHECK(ss_svm_train(on) == SS_OK);
      const SsSvmStatistics *st_off = ss_svm_get_statistics(off), *st_on = ss_svm_get_statistics(on);
      CHECK_EQ_INT(st_off->status, SS_SVM_STATUS_MAX_ITERATIONS);
      CHECK_EQ_INT(st_off->num_newton_iterations, 0);
      CHECK_EQ_INT(st_on->status, SS_SVM_STATUS_CONVERGED);
      CHECK(st_on->num_newton_iterations > 0);
      /* the model is Newton's (the dual variables its certificate's point);
       * SDCA alone returned its own, on the cap */
      CHECK_EQ_INT(ss_svm_get_sdca_model(on), SS_SDCA_MODEL_NEWTON);
      const SsSdcaModel own = ss_svm_get_sdca_model(off);
      CHECK(own == SS_SDCA_MODEL_DUAL || own == SS_SDCA_MODEL_RAY);
      /* Newton adds no SDCA iteration; the stall rule may end SDCA earlier */
      CHECK(st_on->iteration <= st_off->iteration);

      const double P = primal_of(on, X, labels, losses[l], c), D = dual_of(on, X, labels, losses[l], c);
      CHECK_REL(P, st_on->objective, 1e-9);
      CHECK_REL(D, st_on->dual_objective, 1e-6);
      CHECK(P - D <= 1e-6 * P * (1 + 1e-6)); /* D <= P*: P within 1e-6 of the optimum */
      /* SDCA alone was far from it */
      CHECK(primal_of(off, X, labels, losses[l], c) > 1.01 * P);
      ss_svm_delete(off);
      ss_svm_delete(on);
    }
  }
}

/* l2 (ridge with the bias as a feature of value 1): (lambda I + 2/n A'A) w = 2/n A'y,
 * A = (X, 1), solved by Gaussian elimination. */
/* The stall rule (newton.c): with a cap of 10^5 epochs, SDCA hands over to
 * Newton long before it (the gap falls too slowly to meet epsilon within the
 * cap), and the result is the same certified optimum. */
void test_sdca_newton_stall_rule(void) {
  static double X[NN * ND], y[NN], target[NN];
  make_ill_conditioned(X, y, target);
  const SsLoss losses[2] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int l = 0; l < 2; ++l) {
    SsData data;
    CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, NN, ND, ND) == SS_OK);
    SsSvm *svm = new_run(&data, y, losses[l], 100000, 1, NULL);
    CHECK(svm != NULL);
    if (!svm) continue;
    CHECK(ss_svm_train(svm) == SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(svm);
    CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
    CHECK(st->num_newton_iterations > 0);
    CHECK(st->iteration < 1000 * (int64_t)NN);
    const double P = primal_of(svm, X, y, losses[l], NULL), D = dual_of(svm, X, y, losses[l], NULL);
    CHECK(P - D <= 1e-6 * P * (1 + 1e-6));
    ss_svm_delete(svm);
  }
}

void test_sdca_newton_l2_closed_form(void) {
  static double X[NN * ND], y[NN], target[NN];
  make_ill_conditioned(X, y, target);
  enum { M = ND + 1 };
  double H[M][M + 1] = {{0}};
  for (int i = 0; i < NN; ++i) {
    double a[M];
    for (int j = 0; j < ND; ++j) a[j] = X[i * ND + j];
    a[ND] = 1.0;
    for (int j = 0; j < M; ++j) {
      for (int k = 0; k < M; ++k) H[j][k] += 2.0 / NN * a[j] * a[k];
      H[j][M] += 2.0 / NN * a[j] * target[i];
    }
  }
  for (int j = 0; j < M; ++j) H[j][j] += LAMBDA;
  for (int j = 0; j < M; ++j) {
    for (int r = j + 1; r < M; ++r) {
      const double f = H[r][j] / H[j][j];
      for (int k = j; k <= M; ++k) H[r][k] -= f * H[j][k];
    }
  }
  double w[M];
  for (int j = M - 1; j >= 0; --j) {
    double sum = H[j][M];
    for (int k = j + 1; k < M; ++k) sum -= H[j][k] * w[k];
    w[j] = sum / H[j][j];
  }
  const double P_star = tu_objective(X, NN, ND, ND, target, w, w[ND], 1.0, LAMBDA, SS_LOSS_L2, NULL, NULL, NULL);
  SsData data;
  CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, NN, ND, ND) == SS_OK);
  SsSvm *svm = new_run(&data, target, SS_LOSS_L2, 20, 1, NULL);
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK(ss_svm_train(svm) == SS_OK);
  const double P = primal_of(svm, X, target, SS_LOSS_L2, NULL);
  CHECK(P >= P_star * (1 - 1e-12));
  CHECK(P <= P_star * (1 + 1e-6));
  for (int j = 1; j < ND; ++j) CHECK_REL(ss_svm_get_model(svm)[j], w[j], 1e-2);
  ss_svm_delete(svm);
}

static SsSvm *train_on(const SsData *data, const double *y, SsLoss loss) {
  SsSvm *svm = new_run((SsData *)data, y, loss, 20, 1, NULL);
  if (svm && ss_svm_train(svm) != SS_OK) {
    ss_svm_delete(svm);
    return NULL;
  }
  return svm;
}

void test_sdca_newton_dense_csr_float32_repeat(void) {
  static double X[NN * ND], y[NN], target[NN];
  static float X32[NN * ND];
  static double values[NN * ND];
  static int64_t indptr[NN + 1];
  static int32_t indices[NN * ND];
  make_ill_conditioned(X, y, target);
  int64_t nnz = 0;
  for (int i = 0; i < NN; ++i) {
    for (int j = 0; j < ND; ++j) {
      X32[i * ND + j] = (float)X[i * ND + j];
      if (X[i * ND + j] != 0) {
        values[nnz] = X[i * ND + j];
        indices[nnz++] = j;
      }
    }
    indptr[i + 1] = nnz;
  }
  SsData dense, csr, dense32;
  CHECK(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, X, NN, ND, ND) == SS_OK);
  CHECK(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, values, indptr, indices, NN, ND) == SS_OK);
  CHECK(ss_data_init_dense(&dense32, SS_DTYPE_FLOAT32, X32, NN, ND, ND) == SS_OK);
  const SsLoss losses[2] = {SS_LOSS_HINGE2, SS_LOSS_LOGISTIC};
  for (int l = 0; l < 2; ++l) {
    SsSvm *a = train_on(&dense, y, losses[l]), *again = train_on(&dense, y, losses[l]);
    SsSvm *b = train_on(&csr, y, losses[l]), *f = train_on(&dense32, y, losses[l]);
    CHECK(a && again && b && f);
    if (a && again && b && f) {
      /* deterministic: the same bits */
      CHECK(tu_same_bits(ss_svm_get_model(a), ss_svm_get_model(again), ND));
      CHECK(ss_svm_get_bias(a) == ss_svm_get_bias(again));
      CHECK(tu_same_bits(ss_svm_get_dual_variables(a), ss_svm_get_dual_variables(again), NN));
      /* dense = CSR = float32 (the values are exact in float32): same status, same optimum */
      const SsSvm *others[2] = {b, f};
      for (int k = 0; k < 2; ++k) {
        CHECK_EQ_INT(ss_svm_get_statistics(others[k])->status, SS_SVM_STATUS_CONVERGED);
        CHECK_REL(ss_svm_get_statistics(others[k])->objective, ss_svm_get_statistics(a)->objective, 2e-6);
      }
    }
    ss_svm_delete(a);
    ss_svm_delete(again);
    ss_svm_delete(b);
    ss_svm_delete(f);
  }
}

/* The next train continues SDCA from the map's dual point: still certified. */
void test_sdca_newton_continues(void) {
  static double X[NN * ND], y[NN], target[NN];
  make_ill_conditioned(X, y, target);
  SsData data;
  CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, NN, ND, ND) == SS_OK);
  SsSvm *svm = train_on(&data, y, SS_LOSS_LOGISTIC);
  CHECK(svm != NULL);
  if (!svm) return;
  const double first = ss_svm_get_statistics(svm)->objective;
  CHECK(ss_svm_train(svm) == SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK(st->status == SS_SVM_STATUS_CONVERGED || st->num_newton_iterations > 0);
  CHECK(st->objective <= first * (1 + 1e-6));
  CHECK(st->duality_gap <= 1e-6 * st->objective * (1 + 1e-6));
  ss_svm_delete(svm);
}

void test_sdca_newton_refusals(void) {
  static double X[NN * ND], y[NN], target[NN];
  make_ill_conditioned(X, y, target);
  CHECK_EQ_INT(ss_svm_set_newton_fallback(NULL, 1), SS_ERR_BAD_ARG);
  SsData data;
  SsSvm *none = tu_new_dense(SS_SOLVER_NONE, &data, X, y, NN, ND, LAMBDA);
  CHECK(none != NULL);
  if (none) {
    CHECK_EQ_INT(ss_svm_set_newton_fallback(none, 1), SS_ERR_BAD_STATE);
    CHECK(strstr(ss_svm_get_last_error(none), "set_newton_fallback") != NULL);
    CHECK_EQ_INT(ss_svm_get_newton_fallback(none), 0);
    ss_svm_delete(none);
  }
  /* l1 finishes as the hinge does (newton_hinge.c; test_sdca_newton_hinge.c):
   * under AUTO not after a cap the caller set, under ON certified, with
   * dual variables in the box [-1, 1] whose gap, recomputed here, meets it. */
  for (int mode = 0; mode < 2; ++mode) {
    SsSvm *l1 = new_run(&data, target, SS_LOSS_L1, 20, mode ? SS_SVM_NEWTON_FALLBACK_ON : SS_SVM_NEWTON_FALLBACK_AUTO,
                        NULL);
    CHECK(l1 != NULL);
    if (!l1) continue;
    CHECK_EQ_INT(ss_svm_get_newton_fallback(l1), mode ? SS_SVM_NEWTON_FALLBACK_ON : SS_SVM_NEWTON_FALLBACK_AUTO);
    CHECK(ss_svm_train(l1) == SS_OK);
    const SsSvmStatistics *st = ss_svm_get_statistics(l1);
    if (!mode) {
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_MAX_ITERATIONS);
      CHECK_EQ_INT(st->num_newton_iterations, 0);
    } else {
      CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
      CHECK(st->num_newton_iterations > 0);
      const double *alpha = ss_svm_get_dual_variables(l1);
      double v[ND + 1] = {0}, linear = 0, v2 = 0, most = 0;
      for (int i = 0; i < NN; ++i) {
        for (int j = 0; j < ND; ++j) v[j] += alpha[i] * X[i * ND + j] / (LAMBDA * NN);
        v[ND] += alpha[i] / (LAMBDA * NN);
        linear += alpha[i] * target[i] / NN;
        most = fmax(most, fabs(alpha[i]));
      }
      for (int j = 0; j <= ND; ++j) v2 += v[j] * v[j];
      const double D = linear - 0.5 * LAMBDA * v2, P = primal_of(l1, X, target, SS_LOSS_L1, NULL);
      CHECK(most <= 1.0);
      CHECK(fabs(P - st->objective) <= 1e-9 * P);
      CHECK(P - D <= 1e-6 * fmax(P, D) * (1 + 1e-9));
    }
    CHECK_EQ_INT(ss_svm_set_newton_fallback(l1, 0), SS_OK);
    CHECK_EQ_INT(ss_svm_get_newton_fallback(l1), 0);
    ss_svm_delete(l1);
  }
}

/* A near-separable problem with the squared hinge (newton.c's exact line
 * search): integer features 0..16, labels from a random hyperplane through
 * the data's centre, 4 of them flipped, lambda = 1/(1e3 n). The trust
 * region's steps stayed short here (1000 Newton iterations, uncertified;
 * certified in 20 now). */
void test_sdca_newton_near_separable_squared_hinge(void) {
  enum { SN = 400, SD = 32 };
  static double X[SN * SD], y[SN];
  double w[SD], centre = 0;
  TuRng rng;
  tu_rng_init(&rng, 8);
  for (int j = 0; j < SD; ++j) {
    w[j] = tu_rng_uniform(&rng) - 0.5;
    centre += 8 * w[j];
  }
  for (int i = 0; i < SN; ++i) {
    double score = 0;
    for (int j = 0; j < SD; ++j) {
      X[i * SD + j] = floor(17 * tu_rng_uniform(&rng));
      score += w[j] * X[i * SD + j];
    }
    y[i] = (score > centre) == (i >= 4) ? 1.0 : -1.0;
  }
  SsData data;
  CHECK(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, SN, SD, SD) == SS_OK);
  SsSvm *svm = ss_svm_new(SS_SOLVER_SDCA, &data, y, 1.0 / (1e3 * SN));
  CHECK(svm != NULL);
  if (!svm) return;
  CHECK(ss_svm_set_loss(svm, SS_LOSS_HINGE2) == SS_OK);
  CHECK(ss_svm_set_epsilon(svm, 1e-3) == SS_OK);
  CHECK(ss_svm_set_max_num_iterations(svm, 20 * SN) == SS_OK);
  CHECK(ss_svm_train(svm) == SS_OK);
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  CHECK_EQ_INT(st->status, SS_SVM_STATUS_CONVERGED);
  CHECK(st->num_newton_iterations > 0 && st->num_newton_iterations < 200);
  CHECK(st->objective - st->dual_objective <= 1e-3 * st->objective);
  ss_svm_delete(svm);
}
