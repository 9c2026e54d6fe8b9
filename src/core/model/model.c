/* model.c -- SsModel, a trained model as plain data (model_file.h): its
 * validation and its use, scores and predictions.
 *
 * A linear model scores  s_c(x) = <w_c, Psi(x)> + b_c,  Psi the identity or
 * a homogeneous kernel map applied on the fly (homkermap.h). A kernel model
 * scores  s_c(x) = sum_j a_cj K(x, sv_j) + b_c  over m support vectors kept
 * as CSR rows; <x, sv_j> reads a dense row at sv_j's columns or merges a
 * CSR row with sv_j (no scratch vector of the declared dimension d):
 *
 *     linear      K = <x, z>
 *     rbf         K = exp(-g (||x||^2 + ||z||^2 - 2 <x, z>))
 *     polynomial  K = (g <x, z> + r)^p
 *     sigmoid     K = tanh(g <x, z> + r)
 *
 * A model trained after a feature scaling (SCAL) scores the scaled rows
 * x' = (x - offset) .* scale, made in double precision: the same structure
 * with scaled values for CSR data without offsets, otherwise dense blocks
 * of rows (512 KiB each), so memory stays bounded whatever n is.
 */
#include "stochsvm/model_file.h"

#include "../common/internal.h"
#include "../common/message.h"

#include "stochsvm/homkermap.h"
#include "stochsvm/svm.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ss_model_init(SsModel *model)
{
  if (model) memset(model, 0, sizeof *model);
}

void ss_model_free(SsModel *model)
{
  if (!model) return;
  if (model->owns_memory) {
    free(model->labels);
    free(model->weights);
    free(model->biases);
    free(model->sv_indptr);
    free(model->sv_indices);
    free(model->sv_values);
    free(model->coefficients);
    free(model->scaling_offset);
    free(model->scaling_scale);
    free(model->metadata);
  }
  memset(model, 0, sizeof *model);
}

SsStatus ss_message(SsStatus status, char *message, size_t size, const char *format, ...)
{
  if (message && size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, size, format, args);
    va_end(args);
  }
  return status;
}

/* A reason why a model is invalid, and SS_ERR_BAD_ARG. */
#define invalid(message, size, ...) ss_message(SS_ERR_BAD_ARG, message, size, __VA_ARGS__)

static bool all_finite(const double *x, int64_t n)
{
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(x[i])) return false;
  return true;
}

/* The homogeneous kernel map a model describes (SS_OK if its parameters are valid). */
static SsStatus model_map(const SsModel *model, SsHomKerMap *map)
{
  if (!(model->homkermap_period > 0)) return SS_ERR_BAD_ARG;
  return ss_homkermap_init(map, (SsHomKernel)model->homkermap_kernel, model->homkermap_gamma,
                           model->homkermap_order, model->homkermap_period,
                           (SsHomWindow)model->homkermap_window);
}

int64_t ss_model_weight_dimension(const SsModel *model)
{
  if (!model || model->kind != SS_MODEL_LINEAR || model->dimension < 1) return 0;
  if (!model->has_homkermap) return model->dimension;
  SsHomKerMap map;
  if (model_map(model, &map) != SS_OK) return 0;
  int64_t per = ss_homkermap_dimension(&map);
  if (model->dimension > INT64_MAX / per) return 0;
  return model->dimension * per;
}

static bool valid_loss(int loss)
{
  return loss == SS_LOSS_HINGE || loss == SS_LOSS_HINGE2 || loss == SS_LOSS_L1 ||
         loss == SS_LOSS_L2 || loss == SS_LOSS_LOGISTIC || loss == SS_LOSS_CUSTOM;
}

static SsStatus validate_task(const SsModel *m, char *msg, size_t size)
{
  switch (m->task) {
    case SS_TASK_BINARY:
      if (m->num_outputs != 1 || m->num_classes != 2)
        return invalid(msg, size, "a binary model has 1 output and 2 classes, not %lld and %lld",
                       (long long)m->num_outputs, (long long)m->num_classes);
      break;
    case SS_TASK_ONE_VS_REST:
      if (m->num_classes < 3 || m->num_outputs != m->num_classes)
        return invalid(msg, size, "a one-vs-rest model has as many outputs as classes (>= 3), "
                       "not %lld outputs and %lld classes",
                       (long long)m->num_outputs, (long long)m->num_classes);
      break;
    case SS_TASK_REGRESSION:
      if (m->num_outputs != 1 || m->num_classes != 0)
        return invalid(msg, size, "a regression model has 1 output and no classes, not %lld and %lld",
                       (long long)m->num_outputs, (long long)m->num_classes);
      break;
    default:
      return invalid(msg, size, "unknown task %d", (int)m->task);
  }
  if (m->num_classes > 0) {
    if (!m->labels) return invalid(msg, size, "labels missing");
    if (!all_finite(m->labels, m->num_classes)) return invalid(msg, size, "a label is not finite");
    for (int64_t a = 0; a < m->num_classes; ++a)
      for (int64_t b = a + 1; b < m->num_classes; ++b)
        if (m->labels[a] == m->labels[b])
          return invalid(msg, size, "label %.17g appears twice", m->labels[a]);
  }
  return SS_OK;
}

static SsStatus validate_kernel(const SsModel *m, char *msg, size_t size)
{
  int64_t k = m->num_outputs, sv = m->num_support_vectors;
  switch (m->kernel) {
    case SS_MODEL_KERNEL_LINEAR: break;
    case SS_MODEL_KERNEL_POLYNOMIAL:
      if (m->degree < 1) return invalid(msg, size, "polynomial degree %d < 1", m->degree);
      /* fall through */
    case SS_MODEL_KERNEL_SIGMOID:
      if (!isfinite(m->coef0)) return invalid(msg, size, "coef0 is not finite");
      /* fall through */
    case SS_MODEL_KERNEL_RBF:
      if (!(isfinite(m->gamma) && m->gamma > 0))
        return invalid(msg, size, "kernel gamma must be finite and > 0, not %g", m->gamma);
      break;
    default:
      return invalid(msg, size, "unknown kernel %d", (int)m->kernel);
  }
  if (m->has_homkermap) return invalid(msg, size, "a kernel model cannot carry a homogeneous kernel map");
  if (sv < 0 || sv > INT64_MAX / (k > 0 ? k : 1) - 1)
    return invalid(msg, size, "bad number of support vectors %lld", (long long)sv);
  if (!m->sv_indptr || !m->coefficients || !m->biases)
    return invalid(msg, size, "support vectors, coefficients or biases missing");
  if (m->sv_indptr[0] != 0) return invalid(msg, size, "sv_indptr[0] is not 0");
  int64_t nnz = m->sv_indptr[sv];
  if (nnz > 0 && (!m->sv_indices || !m->sv_values))
    return invalid(msg, size, "support vector indices or values missing");
  for (int64_t j = 0; j < sv; ++j) {
    int64_t begin = m->sv_indptr[j], end = m->sv_indptr[j + 1];
    if (end < begin || end > nnz || end - begin > m->dimension) /* end <= nnz: no read past the arrays */
      return invalid(msg, size, "support vector %lld has a bad row extent", (long long)j);
    for (int64_t t = begin; t < end; ++t) {
      int32_t col = m->sv_indices[t];
      if (col < 0 || col >= m->dimension || (t > begin && col <= m->sv_indices[t - 1]))
        return invalid(msg, size, "support vector %lld: column index %ld out of range or order",
                       (long long)j, (long)col);
    }
  }
  if (!all_finite(m->sv_values, nnz)) return invalid(msg, size, "a support vector value is not finite");
  if (!all_finite(m->coefficients, k * sv)) return invalid(msg, size, "a coefficient is not finite");
  return SS_OK;
}

/* The length of the UTF-8 sequence at s (1 to 4), or 0 where it is not one:
 * a stray continuation byte, a short, overlong or surrogate sequence, or a
 * code point above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s)
{
  const unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned least, code;
  if ((c & 0xE0) == 0xC0) len = 2, least = 0x80, code = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) len = 3, least = 0x800, code = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) len = 4, least = 0x10000, code = c & 0x07;
  else return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xC0) != 0x80) return 0; /* (also the terminating NUL) */
    code = code << 6 | (s[k] & 0x3F);
  }
  if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

/* The metadata: UTF-8 text (model_file.h), which Python reads as such. */
static SsStatus validate_metadata(const SsModel *m, char *msg, size_t size)
{
  if (!m->metadata) return SS_OK;
  const unsigned char *s = (const unsigned char *)m->metadata;
  for (size_t at = 0; s[at];) {
    const size_t len = utf8_sequence(s + at);
    if (len == 0) return invalid(msg, size, "the metadata is not UTF-8 text (byte %zu)", at);
    at += len;
  }
  return SS_OK;
}

static SsStatus validate_scaling(const SsModel *m, char *msg, size_t size)
{
  if (m->scaling == SS_MODEL_SCALING_NONE) return SS_OK;
  if (m->scaling < SS_MODEL_SCALING_MINMAX || m->scaling > SS_MODEL_SCALING_STANDARD)
    return invalid(msg, size, "unknown feature scaling %d", (int)m->scaling);
  if (!m->scaling_offset || !m->scaling_scale) return invalid(msg, size, "scaling offsets or scales missing");
  if (!all_finite(m->scaling_offset, m->dimension) || !all_finite(m->scaling_scale, m->dimension))
    return invalid(msg, size, "a scaling offset or scale is not finite");
  return SS_OK;
}

SsStatus ss_model_validate(const SsModel *m, char *msg, size_t size)
{
  if (!m) return invalid(msg, size, "no model (NULL)");
  if (msg && size > 0) msg[0] = '\0';
  if (m->kind != SS_MODEL_LINEAR && m->kind != SS_MODEL_KERNEL)
    return invalid(msg, size, "unknown model kind %d", (int)m->kind);
  if (m->dimension < 1 || m->dimension > INT32_MAX)
    return invalid(msg, size, "dimension %lld out of range [1, 2^31)", (long long)m->dimension);
  SsStatus status = validate_task(m, msg, size);
  if (status != SS_OK) return status;
  if (!valid_loss(m->loss)) return invalid(msg, size, "unknown loss %d", m->loss);
  if (!(isfinite(m->lambda) && m->lambda >= 0))
    return invalid(msg, size, "lambda must be finite and >= 0, not %g", m->lambda);
  if (!(isfinite(m->bias_multiplier) && m->bias_multiplier >= 0))
    return invalid(msg, size, "bias multiplier must be finite and >= 0, not %g", m->bias_multiplier);
  if (m->kind == SS_MODEL_KERNEL) {
    status = validate_kernel(m, msg, size);
    if (status != SS_OK) return status;
  } else {
    SsHomKerMap map;
    if (m->has_homkermap && model_map(m, &map) != SS_OK)
      return invalid(msg, size, "homogeneous kernel map parameters out of range");
    int64_t D = ss_model_weight_dimension(m);
    if (D < 1 || D > INT64_MAX / m->num_outputs / 8)
      return invalid(msg, size, "weight dimension out of range");
    if (!m->weights || !m->biases) return invalid(msg, size, "weights or biases missing");
    if (!all_finite(m->weights, m->num_outputs * D)) return invalid(msg, size, "a weight is not finite");
  }
  if (!all_finite(m->biases, m->num_outputs)) return invalid(msg, size, "a bias is not finite");
  status = validate_metadata(m, msg, size);
  if (status != SS_OK) return status;
  return validate_scaling(m, msg, size);
}

/* ------------------------------------------------------------------------ */
/*                                  Scoring                                 */
/* ------------------------------------------------------------------------ */

static SsStatus score_linear(const SsModel *m, const SsData *data, double *scores)
{
  SsData view = *data;
  SsHomKerMap map;
  if (m->has_homkermap) {
    if (model_map(m, &map) != SS_OK || ss_data_set_homkermap(&view, &map) != SS_OK)
      return SS_ERR_BAD_ARG;
  }
  int64_t k = m->num_outputs, D = ss_model_weight_dimension(m);
  for (int64_t i = 0; i < view.num_data; ++i)
    for (int64_t c = 0; c < k; ++c)
      scores[i * k + c] = ss_data_inner_product(&view, i, m->weights + c * D) + m->biases[c];
  return SS_OK;
}

/* (A distance that rounds below 0 counts as 0; a NaN one, of values that
 * overflow when squared, stays NaN: the score is then not finite, and
 * ss_model_decision_function says so.) */
static double kernel_value(const SsModel *m, double dot, double xx, double zz)
{
  const double distance2 = xx + zz - 2 * dot;
  switch (m->kernel) {
    case SS_MODEL_KERNEL_RBF: return exp(-m->gamma * (distance2 < 0 ? 0.0 : distance2));
    case SS_MODEL_KERNEL_POLYNOMIAL: return pow(m->gamma * dot + m->coef0, m->degree);
    case SS_MODEL_KERNEL_SIGMOID: return tanh(m->gamma * dot + m->coef0);
    case SS_MODEL_KERNEL_LINEAR: break;
  }
  return dot;
}

/* Element t of the data's values (a dense offset or a CSR position). */
static double data_value(const SsData *data, int64_t t)
{
  return data->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)data->values)[t]
                                         : ((const double *)data->values)[t];
}

/* <x_i, sv_j> without a scratch vector: a dense row is read at the support
 * vector's columns; a CSR row is merged with it (both column lists strictly
 * increasing). So scoring costs no buffer of the declared dimension d, which
 * a tiny file may set to 2^31 - 1 (fuzz_model_file). */
static double row_dot_sv(const SsData *data, int64_t i, const SsModel *m, int64_t j)
{
  double dot = 0;
  int64_t t = m->sv_indptr[j];
  const int64_t t_end = m->sv_indptr[j + 1];
  if (data->layout == SS_LAYOUT_DENSE) {
    for (; t < t_end; ++t) dot += m->sv_values[t] * data_value(data, i * data->row_stride + m->sv_indices[t]);
    return dot;
  }
  int64_t q = data->indptr[i];
  const int64_t q_end = data->indptr[i + 1];
  while (t < t_end && q < q_end) {
    if (m->sv_indices[t] < data->indices[q]) ++t;
    else if (m->sv_indices[t] > data->indices[q]) ++q;
    else dot += m->sv_values[t++] * data_value(data, q++);
  }
  return dot;
}

/* ||x_i||^2 over every column of row i. */
static double row_norm2(const SsData *data, int64_t i)
{
  double xx = 0;
  int64_t t = data->layout == SS_LAYOUT_DENSE ? i * data->row_stride : data->indptr[i];
  const int64_t end = data->layout == SS_LAYOUT_DENSE ? t + data->dimension : data->indptr[i + 1];
  for (; t < end; ++t) xx += data_value(data, t) * data_value(data, t);
  return xx;
}

static SsStatus score_kernel(const SsModel *m, const SsData *data, double *scores)
{
  int64_t k = m->num_outputs, sv = m->num_support_vectors;
  double *zz = malloc((size_t)(sv > 0 ? sv : 1) * sizeof *zz);
  if (!zz) return SS_ERR_ALLOC;
  for (int64_t j = 0; j < sv; ++j) {
    double s = 0;
    for (int64_t t = m->sv_indptr[j]; t < m->sv_indptr[j + 1]; ++t) s += m->sv_values[t] * m->sv_values[t];
    zz[j] = s;
  }
  for (int64_t i = 0; i < data->num_data; ++i) {
    const double xx = row_norm2(data, i);
    for (int64_t c = 0; c < k; ++c) scores[i * k + c] = m->biases[c];
    for (int64_t j = 0; j < sv; ++j) {
      double K = kernel_value(m, row_dot_sv(data, i, m, j), xx, zz[j]);
      for (int64_t c = 0; c < k; ++c) scores[i * k + c] += m->coefficients[c * sv + j] * K;
    }
  }
  free(zz);
  return SS_OK;
}

static SsStatus score_rows(const SsModel *m, const SsData *data, double *scores)
{
  return m->kind == SS_MODEL_LINEAR ? score_linear(m, data, scores) : score_kernel(m, data, scores);
}

/* ------------------------------------------------------------------------ */
/*                        Scoring through a scaling                         */
/* ------------------------------------------------------------------------ */

/* Values of one scaled dense block (512 KiB of doubles; at least one row). */
enum { SCALED_BLOCK_VALUES = 1 << 16 };

static bool any_offset(const SsModel *m)
{
  for (int64_t j = 0; j < m->dimension; ++j)
    if (m->scaling_offset[j] != 0) return true;
  return false;
}

/* CSR data and no offset: zeros stay zeros, so the scaled data are the same
 * structure with scaled values (one copy of the values). */
static SsStatus score_scaled_csr(const SsModel *m, const SsData *data, double *scores)
{
  const int64_t nnz = data->indptr[data->num_data];
  double *values = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *values);
  if (!values) return SS_ERR_ALLOC;
  for (int64_t t = 0; t < nnz; ++t) values[t] = data_value(data, t) * m->scaling_scale[data->indices[t]];
  SsData scaled;
  SsStatus status = ss_data_init_csr(&scaled, SS_DTYPE_FLOAT64, values, data->indptr, data->indices,
                                     data->num_data, data->dimension);
  if (status == SS_OK) status = score_rows(m, &scaled, scores);
  free(values);
  return status;
}

/* Row i of the data, scaled, into out[0..d): (x_ij - o_j) s_j, the absent
 * entries of a CSR row counting as 0. */
static void scale_row(const SsModel *m, const SsData *data, int64_t i, double *out)
{
  const int64_t d = data->dimension;
  const double *o = m->scaling_offset, *s = m->scaling_scale;
  if (data->layout == SS_LAYOUT_DENSE) {
    for (int64_t j = 0; j < d; ++j) out[j] = (data_value(data, i * data->row_stride + j) - o[j]) * s[j];
    return;
  }
  for (int64_t j = 0; j < d; ++j) out[j] = -o[j] * s[j];
  for (int64_t t = data->indptr[i]; t < data->indptr[i + 1]; ++t) {
    const int32_t j = data->indices[t];
    out[j] = (data_value(data, t) - o[j]) * s[j];
  }
}

/* Any other case: dense blocks of scaled rows, scored block by block. A
 * block holds at least one row of d doubles; a model with a scaling holds
 * 2 d doubles itself, so a file declaring a huge d cannot make this
 * allocation much larger than the file. */
static SsStatus score_scaled(const SsModel *m, const SsData *data, double *scores)
{
  if (data->layout == SS_LAYOUT_CSR && !any_offset(m)) return score_scaled_csr(m, data, scores);
  const int64_t n = data->num_data, d = data->dimension, k = m->num_outputs;
  const int64_t rows = d >= SCALED_BLOCK_VALUES ? 1 : (n < SCALED_BLOCK_VALUES / d ? n : SCALED_BLOCK_VALUES / d);
  double *block = malloc((size_t)(rows * d) * sizeof *block);
  if (!block) return SS_ERR_ALLOC;
  SsStatus status = SS_OK;
  for (int64_t first = 0; first < n && status == SS_OK; first += rows) {
    const int64_t count = n - first < rows ? n - first : rows;
    for (int64_t r = 0; r < count; ++r) scale_row(m, data, first + r, block + r * d);
    SsData scaled;
    status = ss_data_init_dense(&scaled, SS_DTYPE_FLOAT64, block, count, d, d);
    if (status == SS_OK) status = score_rows(m, &scaled, scores + first * k);
  }
  free(block);
  return status;
}

SsStatus ss_model_decision_function(const SsModel *model, const SsData *data, double *scores)
{
  if (!data || !scores || data->homkermap || data->num_data < 1) return SS_ERR_BAD_ARG;
  if (ss_model_validate(model, NULL, 0) != SS_OK) return SS_ERR_BAD_ARG;
  if (data->dimension != model->dimension) return SS_ERR_BAD_ARG;
  SsStatus status = model->scaling != SS_MODEL_SCALING_NONE ? score_scaled(model, data, scores)
                                                            : score_rows(model, data, scores);
  return status == SS_OK ? ss_scores_status(data, scores, data->num_data * model->num_outputs)
                         : status;
}

SsStatus ss_model_predict(const SsModel *model, const SsData *data, double *predictions)
{
  if (!data || !predictions || !model || model->num_outputs < 1 || data->num_data < 1)
    return SS_ERR_BAD_ARG;
  int64_t n = data->num_data, k = model->num_outputs;
  if (k > 1 && n > INT64_MAX / k) return SS_ERR_BAD_ARG;
  double *scores = k == 1 ? predictions : malloc((size_t)(n * k) * sizeof *scores);
  if (!scores) return SS_ERR_ALLOC;
  SsStatus status = ss_model_decision_function(model, data, scores);
  if (status == SS_OK) {
    for (int64_t i = 0; i < n; ++i) {
      if (model->task == SS_TASK_REGRESSION) continue; /* the score is the prediction */
      if (model->task == SS_TASK_BINARY) {
        predictions[i] = model->labels[scores[i] > 0 ? 1 : 0];
        continue;
      }
      int64_t best = 0;
      for (int64_t c = 1; c < k; ++c)
        if (scores[i * k + c] > scores[i * k + best]) best = c;
      predictions[i] = model->labels[best];
    }
  }
  if (scores != predictions) free(scores);
  return status;
}
