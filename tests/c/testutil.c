/* testutil.c -- see testutil.h. */
#include "testutil.h"
#include "../../src/core/common/internal.h" /* ss_compare_doubles */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

void tu_rng_init(TuRng *rng, uint64_t seed) {
  rng->state = seed * 0x9E3779B97F4A7C15ULL + 1442695040888963407ULL;
}

double tu_rng_uniform(TuRng *rng) {
  rng->state = rng->state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng->state >> 11) * (1.0 / 9007199254740992.0);
}

void tu_make_blobs(double *X, double *y, int64_t n, int64_t d, double sep, uint64_t seed) {
  TuRng rng;
  tu_rng_init(&rng, seed);
  for (int64_t i = 0; i < n; ++i) {
    double label = (i % 2 == 0) ? 1.0 : -1.0;
    y[i] = label;
    for (int64_t j = 0; j < d; ++j) {
      double v = 2.0 * tu_rng_uniform(&rng) - 1.0;
      if (j == 0) v += label * sep;
      X[i * d + j] = floor(v * 64.0) / 64.0;
    }
  }
}

double tu_loss(SsLoss loss, double y, double s) {
  double z = y * s;
  switch (loss) {
    case SS_LOSS_HINGE:
      return z < 1.0 ? 1.0 - z : 0.0;
    case SS_LOSS_HINGE2:
      return z < 1.0 ? (1.0 - z) * (1.0 - z) : 0.0;
    case SS_LOSS_LOGISTIC:
      return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
    case SS_LOSS_L1:
      return fabs(y - s);
    case SS_LOSS_L2:
      return (y - s) * (y - s);
    default: /* the custom loss: not used by the tests that call this */
      break;
  }
  return NAN;
}

double tu_objective(const double *X, int64_t n, int64_t d, int64_t stride, const double *y,
                    const double *w, double b, double B, double lambda, SsLoss loss,
                    const double *weights, double *regularizer, double *loss_part) {
  double sq = 0.0;
  for (int64_t j = 0; j < d; ++j) sq += w[j] * w[j];
  if (B > 0) sq += (b / B) * (b / B);
  double reg = 0.5 * lambda * sq;
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double s = b;
    for (int64_t j = 0; j < d; ++j) s += w[j] * X[i * stride + j];
    double c = weights ? weights[i] : 1.0;
    total += c * tu_loss(loss, y[i], s);
  }
  double l = total / (double)n;
  if (regularizer) *regularizer = reg;
  if (loss_part) *loss_part = l;
  return reg + l;
}

SsSvm *tu_new_dense(SsSolver solver, SsData *data, const double *X, const double *y,
                    int64_t n, int64_t d, double lambda) {
  if (ss_data_init_dense(data, SS_DTYPE_FLOAT64, X, n, d, d) != SS_OK) return NULL;
  return ss_svm_new(solver, data, y, lambda);
}

const double *tu_four_points(SsData *data, SsKernel *kernel) {
  static const double X[4] = {0, 1, 2, 3}, y[4] = {-1, -1, 1, 1};
  if (ss_data_init_dense(data, SS_DTYPE_FLOAT64, X, 4, 1, 1) != SS_OK) return NULL;
  if (ss_kernel_init(kernel, SS_KERNEL_RBF, 1.0, 0, 1) != SS_OK) return NULL;
  return y;
}

int tu_same_bits(const double *a, const double *b, int64_t d) {
  return memcmp(a, b, (size_t)d * sizeof(double)) == 0;
}

int tu_same_kernel_run(const SsKernelSvm *a, const SsKernelSvm *b, int64_t n) {
  const SsKernelSvmStatistics *sa = ss_kernel_svm_get_statistics(a);
  const SsKernelSvmStatistics *sb = ss_kernel_svm_get_statistics(b);
  return tu_same_bits(ss_kernel_svm_get_dual_variables(a), ss_kernel_svm_get_dual_variables(b), n) &&
         tu_same_bits(&sa->objective, &sb->objective, 1);
}

double tu_rows_inner_product(const void *rows, int64_t i, const double *w)
{
  TuRows *m = (TuRows *)rows; /* the test owns it: counting calls */
  m->inner_products++;
  double s = 0;
  for (int64_t j = 0; j < m->d; ++j) s += m->x[i * m->d + j] * w[j];
  return s;
}

void tu_rows_accumulate(const void *rows, int64_t i, double *w, double multiplier)
{
  TuRows *m = (TuRows *)rows;
  m->accumulates++;
  for (int64_t j = 0; j < m->d; ++j) w[j] += multiplier * m->x[i * m->d + j];
}

/* Brute force: for every k, V_k from the sorted classes; the largest k
 * with V_k <= V, then u + v and the midpoint split (sbp_gamma.c). */
void tu_sbp_reference_levels(const double *y, const double *c, int64_t n, double volume,
                             double *gamma, double *bias, int64_t *covered)
{
  double *a = malloc((size_t)n * sizeof(double)), *d = malloc((size_t)n * sizeof(double));
  int64_t np = 0, nn = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] > 0) a[np++] = c[i];
    else d[nn++] = c[i];
  }
  qsort(a, (size_t)np, sizeof(double), ss_compare_doubles);
  qsort(d, (size_t)nn, sizeof(double), ss_compare_doubles);
  int64_t K = np < nn ? np : nn, best = 0;
  double sa = 0, sd = 0, best_sa = 0, best_sd = 0;
  for (int64_t k = 0; k < K; ++k) {
    double needed = (double)k * (a[k] + d[k]) - sa - sd;
    if (needed <= volume) {
      best = k;
      best_sa = sa;
      best_sd = sd;
    }
    sa += a[k];
    sd += d[k];
  }
  double needed = (double)best * (a[best] + d[best]) - best_sa - best_sd;
  double D = (volume - needed) / (double)(best + 1);
  double ga = best + 1 < np ? a[best + 1] - a[best] : INFINITY;
  double gd = best + 1 < nn ? d[best + 1] - d[best] : INFINITY;
  double low = fmax(0, D - gd), high = fmin(ga, D);
  double du = 0.5 * (low + high);
  double u = a[best] + du, v = d[best] + D - du;
  *gamma = 0.5 * (u + v);
  *bias = 0.5 * (v - u);
  *covered = best + 1;
  free(a);
  free(d);
}

int tu_child_exit_code(int (*body)(void *context), void *context, unsigned deadline)
{
#if defined(__unix__) || defined(__APPLE__)
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    alarm(deadline);
    _exit(body(context));
  }
  int status = 0;
  pid_t done = 0;
  const time_t start = time(NULL);
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 && time(NULL) - start < 2 * (time_t)deadline) {
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return done == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#else
  (void)body, (void)context, (void)deadline;
  return 0;
#endif
}
