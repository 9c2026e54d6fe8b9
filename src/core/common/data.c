/* data.c -- the SsData descriptor: validation at construction, then inner
 * products and accumulation of single rows. Validation is done once, so the
 * solvers' inner loops carry no checks. */
#include "internal.h"
#include "row_kernels.h"

static bool all_finite(SsDType dtype, const void *values, int64_t count)
{
  if (dtype == SS_DTYPE_FLOAT32) {
    const float *v = values;
    for (int64_t k = 0; k < count; ++k) if (!isfinite(v[k])) return false;
  } else {
    const double *v = values;
    for (int64_t k = 0; k < count; ++k) if (!isfinite(v[k])) return false;
  }
  return true;
}

/* Stand-ins for the NULL arrays an all-zero CSR matrix may be given: the row
 * kernels offset values and indices by indptr[i] (= 0 here), and any offset
 * applied to a null pointer is undefined behaviour in C. Never read. */
static const double ss_no_values[1];
static const int32_t ss_no_indices[1];

static bool valid_dtype(SsDType dtype)
{
  return dtype == SS_DTYPE_FLOAT32 || dtype == SS_DTYPE_FLOAT64;
}

SsStatus ss_data_init_dense(SsData *data, SsDType dtype, const void *values,
                            int64_t num_data, int64_t dimension, int64_t row_stride)
{
  if (!data || !values || !valid_dtype(dtype)) return SS_ERR_BAD_ARG;
  if (num_data < 1 || dimension < 1 || row_stride < dimension) return SS_ERR_BAD_ARG;
  if (num_data > INT64_MAX / row_stride) return SS_ERR_BAD_ARG;
  size_t element = dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
  for (int64_t i = 0; i < num_data; ++i) {
    const char *row = (const char *)values + (size_t)(i * row_stride) * element;
    if (!all_finite(dtype, row, dimension)) return SS_ERR_BAD_DATA;
  }
  *data = (SsData){.layout = SS_LAYOUT_DENSE, .dtype = dtype, .num_data = num_data,
                   .dimension = dimension, .row_stride = row_stride, .values = values,
                   .indptr = NULL, .indices = NULL};
  return SS_OK;
}

SsStatus ss_data_init_csr(SsData *data, SsDType dtype, const void *values,
                          const int64_t *indptr, const int32_t *indices,
                          int64_t num_data, int64_t dimension)
{
  if (!data || !indptr || !valid_dtype(dtype)) return SS_ERR_BAD_ARG;
  if (num_data < 1 || dimension < 1 || dimension > (int64_t)INT32_MAX + 1) return SS_ERR_BAD_ARG;
  if (indptr[0] != 0) return SS_ERR_BAD_DATA;
  for (int64_t i = 0; i < num_data; ++i) {
    if (indptr[i + 1] < indptr[i]) return SS_ERR_BAD_DATA;
  }
  int64_t nnz = indptr[num_data];
  if (nnz > 0 && (!values || !indices)) return SS_ERR_BAD_ARG;
  for (int64_t i = 0; i < num_data; ++i) {
    int64_t previous = -1;
    for (int64_t k = indptr[i]; k < indptr[i + 1]; ++k) {
      int64_t j = indices[k];
      if (j <= previous || j >= dimension) return SS_ERR_BAD_DATA;
      previous = j;
    }
  }
  if (nnz > 0 && !all_finite(dtype, values, nnz)) return SS_ERR_BAD_DATA;
  *data = (SsData){.layout = SS_LAYOUT_CSR, .dtype = dtype, .num_data = num_data,
                   .dimension = dimension, .row_stride = 0,
                   .values = nnz > 0 ? values : (const void *)ss_no_values, .indptr = indptr,
                   .indices = nnz > 0 ? indices : ss_no_indices};
  return SS_OK;
}

int64_t ss_data_first_nonfinite_row(const SsData *data)
{
  for (int64_t i = 0; i < data->num_data; ++i) {
    bool finite;
    if (data->layout == SS_LAYOUT_DENSE) {
      size_t element = data->dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
      finite = all_finite(data->dtype, (const char *)data->values + (size_t)(i * data->row_stride) * element,
                          data->dimension);
    } else {
      size_t element = data->dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
      finite = all_finite(data->dtype, (const char *)data->values + (size_t)data->indptr[i] * element,
                          data->indptr[i + 1] - data->indptr[i]);
    }
    if (!finite) return i;
  }
  return -1;
}

SsStatus ss_scores_status(const SsData *data, const double *scores, int64_t count)
{
  if (all_finite(SS_DTYPE_FLOAT64, scores, count)) return SS_OK;
  return ss_data_first_nonfinite_row(data) >= 0 ? SS_ERR_BAD_DATA : SS_ERR_NUMERIC;
}

int64_t ss_data_first_non_unit_row(const SsData *data)
{
  for (int64_t i = 0; i < data->num_data; ++i) {
    for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k) {
      const double v = data->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)data->values)[k]
                                                       : ((const double *)data->values)[k];
      if (v != 1.0) return i;
    }
  }
  return -1;
}

bool ss_data_unit_values(const SsData *data)
{
  if (data->layout != SS_LAYOUT_CSR || data->homkermap) return false;
  return data->indptr[data->num_data] > 0 && ss_data_first_non_unit_row(data) < 0;
}

int64_t ss_data_get_dimension(const SsData *data)
{
  if (!data) return 0;
  return data->homkermap ? data->dimension * ss_homkermap_dimension(data->homkermap) : data->dimension;
}

double ss_data_inner_product(const SsData *data, int64_t i, const double *w)
{
  if (data->homkermap) return ss_data_mapped_inner_product(data, i, w);
  if (data->layout == SS_LAYOUT_DENSE) {
    int64_t offset = i * data->row_stride;
    return data->dtype == SS_DTYPE_FLOAT32
               ? ss_dense_dot_f32((const float *)data->values + offset, data->dimension, w)
               : ss_dense_dot_f64((const double *)data->values + offset, data->dimension, w);
  }
  int64_t begin = data->indptr[i], nnz = data->indptr[i + 1] - begin;
  const int32_t *j = data->indices + begin;
  return data->dtype == SS_DTYPE_FLOAT32
             ? ss_csr_dot_f32((const float *)data->values + begin, j, nnz, w)
             : ss_csr_dot_f64((const double *)data->values + begin, j, nnz, w);
}

void ss_data_accumulate(const SsData *data, int64_t i, double *w, double a)
{
  if (data->homkermap) {
    ss_data_mapped_accumulate(data, i, w, a);
    return;
  }
  if (data->layout == SS_LAYOUT_DENSE) {
    int64_t offset = i * data->row_stride;
    if (data->dtype == SS_DTYPE_FLOAT32)
      ss_dense_axpy_f32((const float *)data->values + offset, data->dimension, w, a);
    else
      ss_dense_axpy_f64((const double *)data->values + offset, data->dimension, w, a);
    return;
  }
  int64_t begin = data->indptr[i], nnz = data->indptr[i + 1] - begin;
  const int32_t *j = data->indices + begin;
  if (data->dtype == SS_DTYPE_FLOAT32)
    ss_csr_axpy_f32((const float *)data->values + begin, j, nnz, w, a);
  else
    ss_csr_axpy_f64((const double *)data->values + begin, j, nnz, w, a);
}

double ss_source_inner_product(const SsDataSource *src, int64_t i, const double *w)
{
  return src->kind == SS_DATA_DESCRIPTOR ? ss_data_inner_product(&src->descriptor, i, w)
                                         : src->inner_product(src->user, i, w);
}

void ss_source_accumulate(const SsDataSource *src, int64_t i, double *w, double a)
{
  if (src->kind == SS_DATA_DESCRIPTOR)
    ss_data_accumulate(&src->descriptor, i, w, a);
  else
    src->accumulate(src->user, i, w, a);
}

bool ss_source_accumulate_squares(const SsDataSource *src, int64_t i, double *w, double a)
{
  const SsData *data = &src->descriptor;
  if (src->kind != SS_DATA_DESCRIPTOR || data->homkermap) return false;
  const bool dense = data->layout == SS_LAYOUT_DENSE;
  const int64_t begin = dense ? i * data->row_stride : data->indptr[i];
  const int64_t nnz = dense ? data->dimension : data->indptr[i + 1] - begin;
  const int32_t *index = dense ? NULL : data->indices + begin;
  if (data->dtype == SS_DTYPE_FLOAT32) {
    const float *x = (const float *)data->values + begin;
    for (int64_t k = 0; k < nnz; ++k) w[index ? index[k] : k] += a * (double)x[k] * (double)x[k];
  } else {
    const double *x = (const double *)data->values + begin;
    for (int64_t k = 0; k < nnz; ++k) w[index ? index[k] : k] += a * x[k] * x[k];
  }
  return true;
}

void ss_source_accumulate_diagonal(const SsDataSource *src, int64_t i, int64_t dimension, double *w,
                                   double a, const double *diag, double *scratch)
{
  ss_source_accumulate(src, i, scratch, 1.0);
  for (int64_t k = 0; k < dimension; ++k) {
    if (scratch[k] != 0) w[k] += a * diag[k] * scratch[k];
    scratch[k] = 0;
  }
}

/* Rows per chunk of ss_data_scores: enough work to pay for a claim. */
#define SCORES_CHUNK_ROWS 256

typedef struct ScoresJob {
  const SsData *data;
  const double *w;
  double b;
  double *scores;
} ScoresJob;

/* Scores of rows [lo, hi): each row's dot product, written to its own slot.
 * The type and layout are dispatched once, so the row kernels inline. */
static void score_rows(const SsData *data, const double *w, double b, int64_t lo, int64_t hi,
                       double *scores)
{
  if (data->homkermap) {
    for (int64_t i = lo; i < hi; ++i) scores[i] = ss_data_mapped_inner_product(data, i, w) + b;
    return;
  }
  const int64_t d = data->dimension, stride = data->row_stride;
  const int64_t *P = data->indptr;
  const int32_t *J = data->indices;
  if (data->layout == SS_LAYOUT_DENSE && data->dtype == SS_DTYPE_FLOAT32) {
    const float *X = data->values;
    for (int64_t i = lo; i < hi; ++i) scores[i] = ss_dense_dot_f32(X + i * stride, d, w) + b;
  } else if (data->layout == SS_LAYOUT_DENSE) {
    const double *X = data->values;
    for (int64_t i = lo; i < hi; ++i) scores[i] = ss_dense_dot_f64(X + i * stride, d, w) + b;
  } else if (data->dtype == SS_DTYPE_FLOAT32) {
    const float *V = data->values;
    for (int64_t i = lo; i < hi; ++i) scores[i] = ss_csr_dot_f32(V + P[i], J + P[i], P[i + 1] - P[i], w) + b;
  } else {
    const double *V = data->values;
    for (int64_t i = lo; i < hi; ++i) scores[i] = ss_csr_dot_f64(V + P[i], J + P[i], P[i + 1] - P[i], w) + b;
  }
}

static void score_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* one job writes no per-thread scratch */
  const ScoresJob *job = context;
  const int64_t n = job->data->num_data;
  const int64_t hi = end * SCORES_CHUNK_ROWS < n ? end * SCORES_CHUNK_ROWS : n;
  score_rows(job->data, job->w, job->b, begin * SCORES_CHUNK_ROWS, hi, job->scores);
}

void ss_data_scores(const SsData *data, const double *w, double b, double *scores, SsThreads threads)
{
  /* Each score is one row's dot product, written to its own slot: rows cut
   * into fixed chunks over the threads give the serial result bit for bit. */
  const int64_t n = data->num_data;
  ScoresJob job = {data, w, b, scores};
  ss_parallel_for(ss_threads_pool(threads, n), (n + SCORES_CHUNK_ROWS - 1) / SCORES_CHUNK_ROWS,
                  score_chunks, &job);
}

void ss_source_scores(const SsDataSource *src, const double *w, double b, double *scores, SsThreads threads)
{
  if (src->kind == SS_DATA_ABSTRACT) {
    /* the user's callbacks are not promised to be thread-safe */
    for (int64_t i = 0; i < src->num_data; ++i) scores[i] = ss_source_inner_product(src, i, w) + b;
    return;
  }
  ss_data_scores(&src->descriptor, w, b, scores, threads);
}
