/* fuzz_common.h -- what every libFuzzer harness of the C core shares: a
 * reader that turns the fuzzer's bytes into sizes, enums and numbers
 * (special values such as NaN, infinities, 0, -0, subnormals and the
 * int64 extremes come up often), the table of solvers and losses every
 * harness loops over, and a small-problem builder.
 *
 * Extending the harnesses to a new solver of the linear object is one line:
 * append it to fz_solvers below. A harness may abort() (through FZ_ASSERT)
 * when the core breaks a documented promise; the core itself never may.
 */
#ifndef STOCHSVM_FUZZ_COMMON_H
#define STOCHSVM_FUZZ_COMMON_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stochsvm/homkermap.h"
#include "stochsvm/res.h"
#include "stochsvm/svm.h"

/* Every solver of SsSvm. Append new solvers here (e.g. SS_SOLVER_SVMSGD2). */
/* RES and LRES refuse, with SS_ERR_ALLOC and before allocating, the sizes
 * whose curvature storage res.h bounds (SS_RES_MAX_DIMENSION,
 * SS_LRES_MAX_CURVATURE_DOUBLES): a documented answer, not a failure. */
static inline int fz_size_refused(const SsSvm *svm, SsStatus s)
{
  if (s != SS_ERR_ALLOC) return 0;
  const int64_t d = ss_svm_get_dimension(svm);
  if (ss_svm_get_solver(svm) == SS_SOLVER_RES) return d > SS_RES_MAX_DIMENSION;
  if (ss_svm_get_solver(svm) == SS_SOLVER_LRES) {
    const int64_t m = ss_svm_get_lres_memory(svm);
    return d + 1 > (SS_LRES_MAX_CURVATURE_DOUBLES - m) / (2 * m);
  }
  return 0;
}

static const SsSolver fz_solvers[] = {SS_SOLVER_NONE,    SS_SOLVER_SGD,   SS_SOLVER_SDCA, SS_SOLVER_SVMSGD2,
                                      SS_SOLVER_SGDQN, SS_SOLVER_RES, SS_SOLVER_LRES};
#define FZ_NUM_SOLVERS ((int)(sizeof fz_solvers / sizeof fz_solvers[0]))

/* The table must list every solver the core accepts: a solver added to
 * SsSolver but not here fails every harness (and its meson replay test)
 * with this message, until it is appended above. */
static inline void fz_check_solver_table(void)
{
  static int checked = 0;
  if (checked) return;
  checked = 1;
  for (int s = 0; s < 64; ++s) {
    SsSvm *svm = ss_svm_new_without_data((SsSolver)s, 1, 1.0);
    int listed = 0;
    for (int k = 0; k < FZ_NUM_SOLVERS; ++k) listed |= fz_solvers[k] == (SsSolver)s;
    ss_svm_delete(svm);
    if ((svm != NULL) != listed) {
      fprintf(stderr, "solver %d is %s by the core but %s fz_solvers in tests/fuzz/fuzz_common.h\n",
              s, svm ? "accepted" : "refused", listed ? "listed in" : "missing from");
      abort();
    }
  }
}

/* Every built-in loss (SS_LOSS_CUSTOM is installed through a function table). */
static const SsLoss fz_losses[] = {SS_LOSS_HINGE, SS_LOSS_HINGE2, SS_LOSS_L1, SS_LOSS_L2,
                                   SS_LOSS_LOGISTIC};
#define FZ_NUM_LOSSES ((int)(sizeof fz_losses / sizeof fz_losses[0]))

/* An invariant the core promised; a failure is a bug to report (abort). */
#define FZ_ASSERT(cond)                                                               \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

typedef struct FzInput {
  const uint8_t *bytes;
  size_t size;
} FzInput;

/* The status of a decision function's @p count scores: SS_OK with every
 * score finite, SS_ERR_NUMERIC with one that is not (finite values that
 * overflow against the model, e.g. a polynomial kernel of degree 37 and
 * coef0 -1.8e308), or SS_ERR_ALLOC. */
static inline void fz_check_scores(SsStatus s, const double *scores, int64_t count)
{
  FZ_ASSERT(s == SS_OK || s == SS_ERR_ALLOC || s == SS_ERR_NUMERIC);
  int64_t nonfinite = 0;
  if (s != SS_ERR_ALLOC)
    for (int64_t i = 0; i < count; ++i) nonfinite += !isfinite(scores[i]);
  FZ_ASSERT(s == SS_ERR_NUMERIC ? nonfinite > 0 : nonfinite == 0);
}

/* The next k <= 8 bytes as an unsigned integer (zeros once the input is used up). */
static inline uint64_t fz_bits(FzInput *in, int k)
{
  uint64_t v = 0;
  for (int b = 0; b < k; ++b) {
    uint64_t byte = 0;
    if (in->size > 0) {
      byte = in->bytes[0];
      ++in->bytes;
      --in->size;
    }
    v |= byte << (8 * b);
  }
  return v;
}

static inline int fz_byte(FzInput *in) { return (int)fz_bits(in, 1); }

/* An integer in [lo, hi] (hi - lo < 2^32). */
static inline int64_t fz_range(FzInput *in, int64_t lo, int64_t hi)
{
  uint64_t span = (uint64_t)(hi - lo) + 1;
  uint64_t v = span <= 256 ? fz_bits(in, 1) : span <= 65536 ? fz_bits(in, 2) : fz_bits(in, 4);
  return lo + (int64_t)(v % span);
}

/* Any double, special values often. */
static inline double fz_double(FzInput *in)
{
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 1e3, NAN, INFINITY,
                                   -INFINITY, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324, 1e-300,
                                   1e300, 1.0 + DBL_EPSILON, 1e-12, 1e12};
  const int ns = (int)(sizeof special / sizeof special[0]);
  int sel = fz_byte(in);
  if (sel < ns * 8) return special[sel % ns];
  if (sel < 224) return (double)(int8_t)fz_byte(in) / 16.0; /* small, exact */
  uint64_t bits = fz_bits(in, 8);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* A double that is usually a moderate positive number (for parameters that
 * must be positive); the special values still come up. */
static inline double fz_positive(FzInput *in)
{
  int sel = fz_byte(in);
  if (sel < 192) return pow(10.0, (double)(sel % 13) - 8.0); /* 1e-8 .. 1e4 */
  return fz_double(in);
}

/* Any int64, special values often. */
static inline int64_t fz_int64(FzInput *in)
{
  static const int64_t special[] = {0, 1, -1, 2, 3, 7, 16, 100, INT64_MAX, INT64_MIN,
                                    INT64_MAX - 1, INT32_MAX, (int64_t)INT32_MAX + 1, -2};
  const int ns = (int)(sizeof special / sizeof special[0]);
  int sel = fz_byte(in);
  if (sel < ns * 8) return special[sel % ns];
  if (sel < 224) return (int64_t)(fz_byte(in) % 64);
  return (int64_t)fz_bits(in, 8);
}

/* A data set read from the input: the arrays the descriptor borrows, owned
 * here, and sized exactly so that AddressSanitizer sees any read past them.
 * The structure (indptr, indices, stride, values) is whatever the bytes say:
 * the init functions must reject what is malformed. */
typedef struct FzProblem {
  SsData data;
  SsStatus init_status;
  int64_t n, d;
  void *values;
  int64_t *indptr;
  int32_t *indices;
  double *labels;
  SsHomKerMap map;
} FzProblem;

static inline void fz_problem_free(FzProblem *p)
{
  free(p->values);
  free(p->indptr);
  free(p->indices);
  free(p->labels);
  memset(p, 0, sizeof *p);
}

/* Values of the data: mostly small exact numbers, sometimes anything. */
static inline double fz_value(FzInput *in, int wild)
{
  int sel = fz_byte(in);
  if (!wild || sel < 200) return (double)((int)(sel % 9) - 4) / 2.0;
  return fz_double(in);
}

/* Build a problem of at most max_n rows and max_d columns. `wild` lets the
 * bytes break the structure (bad indptr, unsorted or out-of-range indices,
 * NaN/inf, bad stride, sizes < 1); without it the data is valid and only
 * the values vary. Labels: -1/+1, or anything when wild. */
static inline void fz_problem_build(FzProblem *p, FzInput *in, int64_t max_n, int64_t max_d, int wild)
{
  memset(p, 0, sizeof *p);
  const int header = fz_byte(in);
  const int csr = header & 1;
  const SsDType dtype = (header & 2) ? SS_DTYPE_FLOAT32 : SS_DTYPE_FLOAT64;
  const int64_t n = fz_range(in, wild ? 0 : 1, max_n);
  const int64_t d = fz_range(in, wild ? 0 : 1, max_d);
  const size_t element = dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
  p->n = n;
  p->d = d;
  p->labels = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; ++i) {
    int sel = fz_byte(in);
    p->labels[i] = (wild && sel >= 240) ? fz_double(in) : (sel & 1 ? 1.0 : -1.0);
  }
  if (!csr) {
    int64_t stride = d + fz_range(in, wild ? -1 : 0, 2);
    int64_t count = n > 0 && stride >= 0 ? (n - 1) * stride + d : 0;
    if (count < 1) count = 1;
    p->values = malloc((size_t)count * element);
    for (int64_t k = 0; k < count; ++k) {
      double v = fz_value(in, wild);
      if (dtype == SS_DTYPE_FLOAT32) ((float *)p->values)[k] = (float)v;
      else ((double *)p->values)[k] = v;
    }
    p->init_status = ss_data_init_dense(&p->data, dtype, p->values, n, d, stride);
    return;
  }
  /* CSR: row lengths from the bytes; indptr[n] = nnz (the arrays' length,
   * which the C core must trust); inner entries may be corrupted. */
  int64_t dim = d;
  if (wild && (header & 4)) dim = fz_int64(in); /* huge or negative dimensions */
  p->indptr = malloc((size_t)(n + 1) * sizeof(int64_t));
  p->indptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) p->indptr[i + 1] = p->indptr[i] + fz_range(in, 0, 4);
  const int64_t nnz = p->indptr[n];
  if (wild && (header & 8) && n > 0) {
    int64_t at = fz_range(in, 0, n - 1); /* never the last: it is the arrays' length */
    p->indptr[at] = (header & 16) ? fz_int64(in) : p->indptr[at] + fz_range(in, -3, 3);
  }
  p->values = malloc((size_t)(nnz > 0 ? nnz : 1) * element);
  p->indices = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(int32_t));
  for (int64_t i = 0; i < n; ++i) {
    int64_t column = -1;
    for (int64_t k = p->indptr[i] < 0 ? 0 : p->indptr[i]; k < nnz && k < p->indptr[i + 1]; ++k) {
      column += 1 + fz_range(in, 0, 3);
      p->indices[k] = (int32_t)(wild && fz_byte(in) >= 250 ? (int32_t)fz_bits(in, 4) : column);
    }
  }
  for (int64_t k = 0; k < nnz; ++k) {
    double v = fz_value(in, wild);
    if (dtype == SS_DTYPE_FLOAT32) ((float *)p->values)[k] = (float)v;
    else ((double *)p->values)[k] = v;
  }
  if (!wild) {
    /* Valid data: every column index below d (the dimension grows to fit). */
    int32_t top = 0;
    for (int64_t k = 0; k < nnz; ++k) top = p->indices[k] >= top ? p->indices[k] + 1 : top;
    if (dim < top) dim = top;
    p->d = dim;
  }
  p->init_status = ss_data_init_csr(&p->data, dtype, nnz > 0 ? p->values : NULL, p->indptr,
                                    nnz > 0 ? p->indices : NULL, n, dim);
}

/* Whether a row's sum of squares, summed here, comes near or past the
 * largest double: the objects refuse to train on data whose squared row
 * norms overflow (SS_ERR_BAD_DATA), and the core may sum in another order,
 * so the harness allows that status from 1e300 on. */
static inline int fz_norms_overflow(const SsData *x)
{
  for (int64_t i = 0; i < x->num_data; ++i) {
    int64_t begin = x->layout == SS_LAYOUT_DENSE ? i * x->row_stride : x->indptr[i];
    int64_t end = x->layout == SS_LAYOUT_DENSE ? begin + x->dimension : x->indptr[i + 1];
    double sum = 0;
    for (int64_t k = begin; k < end; ++k) {
      double v = x->dtype == SS_DTYPE_FLOAT32 ? ((const float *)x->values)[k] : ((const double *)x->values)[k];
      sum += v * v;
    }
    if (!(sum < 1e300)) return 1;
  }
  return 0;
}

/* Attach a homogeneous kernel map read from the input (valid parameters). */
static inline SsStatus fz_attach_map(FzProblem *p, FzInput *in)
{
  SsStatus s = ss_homkermap_init(&p->map, (SsHomKernel)fz_range(in, 0, 2), 0.5 + fz_range(in, 0, 3) * 0.5,
                                 (int)fz_range(in, 0, 3), fz_range(in, 0, 1) ? 0.0 : 1.0 + fz_range(in, 0, 20),
                                 (SsHomWindow)fz_range(in, 0, 1));
  FZ_ASSERT(s == SS_OK);
  return ss_data_set_homkermap(&p->data, &p->map);
}

/* ss_svm_train and, when it succeeds, the verdict of its closing
 * diagnostic, which the object may leave for later (ss_svm_settle): the
 * status the invariants below are about, as the Python layer sees it. */
static inline SsStatus fz_svm_train(SsSvm *svm)
{
  SsStatus s = ss_svm_train(svm);
  return s == SS_OK ? ss_svm_settle(svm) : s;
}

/* Every number a trained object reports is finite after SS_OK. */
static inline void fz_check_finite_model(const SsSvm *svm)
{
  const double *w = ss_svm_get_model(svm);
  for (int64_t k = 0; k < ss_svm_get_dimension(svm); ++k) FZ_ASSERT(isfinite(w[k]));
  FZ_ASSERT(isfinite(ss_svm_get_bias(svm)));
  const SsSvmStatistics *st = ss_svm_get_statistics(svm);
  FZ_ASSERT(isfinite(st->objective) && isfinite(st->regularizer) && isfinite(st->loss));
  FZ_ASSERT(st->status == SS_SVM_STATUS_CONVERGED || st->status == SS_SVM_STATUS_MAX_ITERATIONS);
  const double *s = ss_svm_get_scores(svm);
  FZ_ASSERT(s != NULL);
  for (int64_t i = 0; i < ss_svm_get_num_data(svm); ++i) FZ_ASSERT(isfinite(s[i]));
}

#endif /* STOCHSVM_FUZZ_COMMON_H */
