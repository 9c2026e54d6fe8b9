/* kernel.c -- kernel functions and kernel rows (include/stochsvm/kernel.h).
 *
 * A row K(z, x_j), j in a list of rows of X, is computed in two passes:
 *   1. z is scattered into a dense work vector zd (d doubles), once;
 *      dot_j = <x_j, zd> is then a dense dot or a sparse gather per row;
 *   2. the kernel's scalar function maps dot_j (and, for rbf, the cached
 *      squared norms) to K in a second, branch-free loop.
 * The switch on layout, element type and kernel type sits outside the loops,
 * so the per-evaluation cost is the dot product and one exp/pow/tanh. The
 * rbf's exp is ss_vexp_kernel (vexp.h), which the compiler vectorises (with AVX2
 * and AVX-512 copies where the CPU has them); CSR data whose values are
 * all 1 skip the values in the dots (ss_data_unit_values); a long row
 * is split into fixed blocks over the object's threads (threads.h): every
 * entry is computed alone, so the row is the same for any thread count.
 * A solver that computes rows of X against X's own rows (the SBP) may keep
 * a row copy (SsRowCopy, "Row copies" below): 0/1 rows as bits, other CSR
 * rows in slices of 8 summed as one vector, the dots the same bits.
 */
#include "kernel_internal.h"
#include "../common/dense_dots.h"
#include "../common/row_kernels.h"
#include "../common/vexp.h"
#include "../common/vexp_f32.h"

#include <stdlib.h>
#include <string.h>

SsStatus ss_kernel_init(SsKernel *kernel, SsKernelType type, double gamma, double coef0,
                        int degree)
{
  if (!kernel || !isfinite(gamma) || !isfinite(coef0)) return SS_ERR_BAD_ARG;
  switch (type) {
  case SS_KERNEL_LINEAR:
  case SS_KERNEL_PRECOMPUTED:
    break;
  case SS_KERNEL_POLYNOMIAL:
    if (degree < 1 || degree > 64) return SS_ERR_BAD_ARG;
    /* fall through */
  case SS_KERNEL_RBF:
  case SS_KERNEL_SIGMOID:
    if (!(gamma > 0)) return SS_ERR_BAD_ARG;
    break;
  default:
    return SS_ERR_BAD_ARG;
  }
  *kernel = (SsKernel){.type = type, .gamma = gamma, .coef0 = coef0, .degree = degree};
  return SS_OK;
}

SsStatus ss_kernel_init_gaussian(SsKernel *kernel, double sigma2)
{
  if (!(sigma2 > 0) || !isfinite(sigma2)) return SS_ERR_BAD_ARG;
  double gamma = 1.0 / (2.0 * sigma2);
  if (!isfinite(gamma) || !(gamma > 0)) return SS_ERR_BAD_ARG;
  return ss_kernel_init(kernel, SS_KERNEL_RBF, gamma, 0.0, 1);
}

SsStatus ss_kernel_check(const SsKernel *kernel)
{
  if (!kernel) return SS_ERR_BAD_ARG;
  SsKernel copy;
  return ss_kernel_init(&copy, kernel->type, kernel->gamma, kernel->coef0, kernel->degree);
}

static inline double int_pow(double base, int degree)
{
  double result = 1.0;
  while (degree > 0) {
    if (degree & 1) result *= base;
    base *= base;
    degree >>= 1;
  }
  return result;
}

double ss_kernel_value(const SsKernel *kernel, double dot, double norm2_x, double norm2_z)
{
  switch (kernel->type) {
  case SS_KERNEL_RBF: {
    double distance2 = norm2_x + norm2_z - 2.0 * dot;
    return ss_vexp_kernel(-kernel->gamma * (distance2 < 0 ? 0.0 : distance2));
  }
  case SS_KERNEL_POLYNOMIAL:
    return int_pow(kernel->gamma * dot + kernel->coef0, kernel->degree);
  case SS_KERNEL_SIGMOID:
    return tanh(kernel->gamma * dot + kernel->coef0);
  default:
    return dot;
  }
}

/* ------------------------------------------------------------------------ */
/*                          Rows of a descriptor                             */
/* ------------------------------------------------------------------------ */

void ss_data_scatter_row(const SsData *data, int64_t i, double *zd)
{
  const int64_t d = data->dimension;
  if (data->layout == SS_LAYOUT_DENSE) {
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *x = (const float *)data->values + i * data->row_stride;
      for (int64_t k = 0; k < d; ++k) zd[k] = x[k];
    } else {
      const double *x = (const double *)data->values + i * data->row_stride;
      for (int64_t k = 0; k < d; ++k) zd[k] = x[k];
    }
  } else {
    const int64_t begin = data->indptr[i], end = data->indptr[i + 1];
    const int32_t *j = data->indices;
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *v = data->values;
      for (int64_t k = begin; k < end; ++k) zd[j[k]] = v[k];
    } else {
      const double *v = data->values;
      for (int64_t k = begin; k < end; ++k) zd[j[k]] = v[k];
    }
  }
}

void ss_data_clear_row(const SsData *data, int64_t i, double *zd)
{
  if (data->layout == SS_LAYOUT_DENSE) return; /* the next scatter overwrites every entry */
  for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k) zd[data->indices[k]] = 0.0;
}

double ss_data_row_squared_norm(const SsData *data, int64_t i)
{
  double s = 0;
  if (data->layout == SS_LAYOUT_DENSE) {
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *x = (const float *)data->values + i * data->row_stride;
      for (int64_t k = 0; k < data->dimension; ++k) s += (double)x[k] * x[k];
    } else {
      const double *x = (const double *)data->values + i * data->row_stride;
      for (int64_t k = 0; k < data->dimension; ++k) s += x[k] * x[k];
    }
  } else {
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *v = data->values;
      for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k) s += (double)v[k] * v[k];
    } else {
      const double *v = data->values;
      for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k) s += v[k] * v[k];
    }
  }
  return s;
}

/* ------------------------------------------------------------------------ */
/*                 Row copies (SsRowCopy, kernel_internal.h)                 */
/* ------------------------------------------------------------------------ */

void ss_row_copy_free(SsRowCopy *copy)
{
  free(copy->bits);
  free(copy->slice_start);
  free(copy->values_memory);
  free(copy->columns);
  free(copy->even);
  free(copy->lane);
  *copy = (SsRowCopy){0};
}

/* The value of CSR entry k as a double (exact for float32). */
static inline double csr_value(const SsData *X, int64_t k)
{
  return X->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)X->values)[k]
                                      : ((const double *)X->values)[k];
}

/* The bit copy of 0/1 rows: row r's columns as bits of words r W.. r W + W - 1. */
static SsStatus bit_copy(SsRowCopy *copy, const SsData *X)
{
  const int64_t n = X->num_data, words = (X->dimension + 63) / 64;
  uint64_t *bits = calloc((size_t)(n * words), sizeof(uint64_t));
  if (!bits) return SS_ERR_ALLOC;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t k = X->indptr[r]; k < X->indptr[r + 1]; ++k) {
      const int32_t j = X->indices[k];
      bits[r * words + j / 64] |= (uint64_t)1 << (j % 64);
    }
  }
  *copy = (SsRowCopy){.num_rows = n, .words = words, .bits = bits,
                      .bytes = (size_t)(n * words) * sizeof(uint64_t)};
  return SS_OK;
}

/* A slice lies inside one block, its lanes' rows are bytes, its even-position
 * flags a byte, and sliced_dots spells out 8 lanes. */
_Static_assert(SS_KERNEL_ROW_BLOCK % SS_ROW_SLICE == 0 && SS_KERNEL_ROW_BLOCK <= 256 &&
                   SS_ROW_SLICE == 8,
               "the sliced row copy's layout");

/* A row's column pattern as a 64-bit hash (FNV-1a over its columns). */
static uint64_t pattern_hash(const SsData *X, int64_t r)
{
  uint64_t h = 14695981039346656037ull;
  for (int64_t k = X->indptr[r]; k < X->indptr[r + 1]; ++k) {
    h = (h ^ (uint32_t)X->indices[k]) * 1099511628211ull;
  }
  return h;
}

typedef struct KeyedRow {
  uint64_t key;
  int64_t row;
} KeyedRow;

static int by_key_then_row(const void *a, const void *b)
{
  const KeyedRow *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* The sliced copy (none when its zeros pass SS_ROW_SLICE_MAX_PAD of nnz).
 * Each block of SS_KERNEL_ROW_BLOCK rows is cut into slices of
 * SS_ROW_SLICE rows, its rows ordered by column pattern first (rows with
 * the same columns side by side), so that a slice's rows share most of
 * their columns; lane[s L + l] is the block offset of slice s's row l.
 * Slice s's columns (those of any of its rows, increasing) are entries
 * slice_start[s] .. slice_start[s + 1] - 1, each with SS_ROW_SLICE values
 * (0 where a row lacks the column) and a byte whose bit l says that row l
 * holds the column at an even position of its CSR row (or lacks it, when
 * every row that holds it does so at an even position). */
static SsStatus sliced_copy(SsRowCopy *copy, const SsData *X)
{
  enum { L = SS_ROW_SLICE, B = SS_KERNEL_ROW_BLOCK };
  const int64_t n = X->num_data, d = X->dimension, blocks = ss_kernel_row_num_blocks(n);
  const int64_t *p = X->indptr;
  const int64_t slices = blocks * (B / L); /* the last block may use fewer */
  int64_t *start = malloc((size_t)(slices + 1) * sizeof(int64_t));
  uint8_t *lane = malloc((size_t)(slices * L));
  KeyedRow *order = malloc((size_t)n * sizeof(KeyedRow));
  uint8_t *seen = calloc((size_t)d, 1);
  uint8_t *held = calloc((size_t)d, 1); /* per column entry of a slice: its rows */
  double *values = NULL, *values_memory = NULL;
  uint16_t *columns = NULL;
  uint8_t *even = NULL;
  SsStatus status = SS_ERR_ALLOC;
  if (!start || !lane || !order || !seen || !held) goto done;
  for (int64_t r = 0; r < n; ++r) order[r] = (KeyedRow){pattern_hash(X, r), r};
  /* the slices' columns, counted with seen[] marking them */
  start[0] = 0;
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t lo = s / (B / L) * B + s % (B / L) * L;
    const int64_t block_end = lo - lo % B + B < n ? lo - lo % B + B : n;
    if (lo % B == 0 && lo < n) {
      qsort(order + lo, (size_t)(block_end - lo), sizeof *order, by_key_then_row);
    }
    int64_t count = 0;
    for (int64_t r = lo; r < lo + L && r < block_end; ++r) {
      const int64_t row = order[r].row;
      for (int64_t k = p[row]; k < p[row + 1]; ++k) count += !seen[X->indices[k]]++;
    }
    for (int64_t r = lo; r < lo + L && r < block_end; ++r) {
      const int64_t row = order[r].row;
      for (int64_t k = p[row]; k < p[row + 1]; ++k) seen[X->indices[k]] = 0;
    }
    start[s + 1] = start[s] + count;
  }
  const int64_t total = start[slices];
  if ((double)(total * L - p[n]) > SS_ROW_SLICE_MAX_PAD * (double)p[n]) {
    status = SS_OK; /* too many zeros: no copy */
    goto done;
  }
  /* one cache line an entry (8 doubles), zeroed (the absent entries): the
   * first 64-byte boundary of an allocation 7 doubles longer; each array
   * SS_ROW_PREFETCH entries longer, where the dots' prefetches may point */
  const int64_t room = total + SS_ROW_PREFETCH;
  values_memory = calloc((size_t)(room * L + 7), sizeof(double));
  if (values_memory) {
    const uintptr_t address = (uintptr_t)values_memory;
    values = values_memory + ((64 - address % 64) % 64) / sizeof(double);
  }
  columns = calloc((size_t)room, sizeof(uint16_t));
  even = calloc((size_t)room, 1);
  if (!values || !columns || !even) goto done;
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t lo = s / (B / L) * B + s % (B / L) * L;
    const int64_t block_end = lo - lo % B + B < n ? lo - lo % B + B : n;
    /* mark the slice's columns, then number them in increasing order */
    for (int64_t r = lo; r < lo + L && r < block_end; ++r) {
      const int64_t row = order[r].row;
      for (int64_t k = p[row]; k < p[row + 1]; ++k) seen[X->indices[k]] = 1;
    }
    int64_t e = start[s];
    for (int64_t c = 0; c < d && e < start[s + 1]; ++c) {
      if (seen[c]) {
        columns[e++] = (uint16_t)c;
        seen[c] = 0;
      }
    }
    for (int64_t l = 0; l < L; ++l) {
      lane[s * L + l] = (uint8_t)(lo + l < block_end ? order[lo + l].row % B : 0);
      if (lo + l >= block_end) continue;
      const int64_t row = order[lo + l].row;
      int64_t q = start[s];
      for (int64_t k = p[row]; k < p[row + 1]; ++k) {
        while (columns[q] != X->indices[k]) ++q; /* both increase */
        values[q * L + l] = csr_value(X, k);
        if ((k - p[row]) % 2 == 0) even[q] |= (uint8_t)(1u << l);
        held[q - start[s]] |= (uint8_t)(1u << l);
      }
    }
    /* a row without the column adds +-0 to either sum: when the rows that
     * hold it agree on its parity, the others take it too, so that the dots
     * add the column to one sum for all the lanes */
    for (int64_t q = start[s]; q < start[s + 1]; ++q) {
      if (even[q] == held[q - start[s]]) even[q] = 0xFF;
      held[q - start[s]] = 0;
    }
  }
  *copy = (SsRowCopy){.num_rows = n, .slice_start = start, .lane = lane, .values = values,
                      .values_memory = values_memory, .num_entries = total,
                      .columns = columns, .even = even,
                      .bytes = (size_t)room * (L * sizeof(double) + sizeof(uint16_t) + 1) +
                               7 * sizeof(double) + (size_t)(slices + 1) * sizeof(int64_t) +
                               (size_t)(slices * L)};
  start = NULL;
  lane = NULL;
  values_memory = NULL;
  columns = NULL;
  even = NULL;
  status = SS_OK;
done:
  free(start);
  free(lane);
  free(order);
  free(seen);
  free(held);
  free(values_memory);
  free(columns);
  free(even);
  return status;
}

SsStatus ss_row_copy_update(SsRowCopy *copy, const SsData *X, unsigned flags)
{
  ss_row_copy_free(copy); /* made again: X's values may have changed since */
  if (X->layout != SS_LAYOUT_CSR || X->homkermap || X->indptr[X->num_data] == 0) return SS_OK;
  SsStatus status = SS_OK;
  if (flags & SS_ROWS_UNIT_VALUES) {
    if (X->dimension <= SS_ROW_BITS_MAX_DIMENSION) status = bit_copy(copy, X);
  } else if (X->dimension <= 65536) {
    status = sliced_copy(copy, X);
  }
  if (status != SS_OK) ss_row_copy_free(copy);
  return status;
}

/* Row subsets. Rows listed out of X (an active set, a support list) lie
 * scattered over it, and the dots of a row over the list fetch each listed
 * row's offsets, columns and values from memory: on ijcnn1, 47 ns a listed
 * row. Copied one after the other, with a row copy of their own, they are
 * summed as consecutive rows, about 5 ns a row there. The copy costs a pass
 * over the rows' entries and memory up to their share of X, twice (CSR and
 * row copy). */
void ss_row_subset_free(SsRowSubset *subset)
{
  free(subset->indptr);
  free(subset->indices);
  free(subset->values);
  free(subset->norms2);
  ss_row_copy_free(&subset->copy);
  *subset = (SsRowSubset){0};
}

bool ss_row_subset_make(SsRowSubset *subset, const SsData *X, const int64_t *list, int64_t m,
                        const double *norms2, unsigned flags)
{
  ss_row_subset_free(subset);
  if (X->layout != SS_LAYOUT_CSR || X->homkermap || m < 1) return false;
  const int64_t *p = X->indptr;
  const size_t size = X->dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
  int64_t nnz = 0;
  for (int64_t q = 0; q < m; ++q) nnz += p[list[q] + 1] - p[list[q]];
  subset->indptr = malloc((size_t)(m + 1) * sizeof(int64_t));
  subset->indices = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
  subset->values = malloc((size_t)(nnz > 0 ? nnz : 1) * size);
  subset->norms2 = malloc((size_t)m * sizeof(double));
  if (!subset->indptr || !subset->indices || !subset->values || !subset->norms2) {
    ss_row_subset_free(subset);
    return false;
  }
  subset->indptr[0] = 0;
  for (int64_t q = 0; q < m; ++q) {
    const int64_t r = list[q], first = p[r], count = p[r + 1] - first, at = subset->indptr[q];
    memcpy(subset->indices + at, X->indices + first, (size_t)count * sizeof(int32_t));
    memcpy((char *)subset->values + (size_t)at * size,
           (const char *)X->values + (size_t)first * size, (size_t)count * size);
    subset->indptr[q + 1] = at + count;
    subset->norms2[q] = norms2[r];
  }
  subset->data = (SsData){.layout = SS_LAYOUT_CSR, .dtype = X->dtype, .num_data = m,
                          .dimension = X->dimension, .values = subset->values,
                          .indptr = subset->indptr, .indices = subset->indices};
  (void)ss_row_copy_update(&subset->copy, &subset->data, flags); /* none: the CSR dots */
  return true;
}

/* out[k] = popcount(b_{first + k} AND zb) for k < len, W words a row (zb:
 * the scored row's bits): one copy of the loop per W, the word loop
 * unrolled. */
static inline void bit_dots_of_width(const uint64_t *bits, int64_t W, const uint64_t *zb, int64_t first,
                                     int64_t len, double *out)
{
  const uint64_t *b = bits + first * W;
  for (int64_t k = 0; k < len; ++k) {
    int64_t count = 0;
    for (int64_t w = 0; w < W; ++w) count += __builtin_popcountll(b[k * W + w] & zb[w]);
    out[k] = (double)count;
  }
}

SS_VECTOR_CLONES static void bit_dots(const SsRowCopy *copy, const uint64_t *zb, int64_t first,
                                      int64_t len, double *out)
{
  switch (copy->words) {
  case 1: bit_dots_of_width(copy->bits, 1, zb, first, len, out); break;
  case 2: bit_dots_of_width(copy->bits, 2, zb, first, len, out); break;
  case 3: bit_dots_of_width(copy->bits, 3, zb, first, len, out); break;
  default: bit_dots_of_width(copy->bits, 4, zb, first, len, out); break;
  }
}

/* out[k] = <x_{first + k}, zd> for k < len over the sliced copy (whole
 * blocks: first a multiple of SS_KERNEL_ROW_BLOCK, len too unless the
 * last block ends the row), each lane's dot stored at its row's place in
 * the block. Lane l of a slice sums its row's entries at
 * even positions in s0 and at odd ones in s1, in column order, then
 * s0 + s1, as ss_csr_dot_f64 (and two_csr_dots) do. A lane's product goes
 * to one sum and +0 to the other, and a column the row lacks gives 0 z_c =
 * +-0: neither changes a sum (which is never -0). z_c is one value for all
 * the lanes, so the loop is vector loads, products, masks and adds, no
 * gather: with GCC and Clang the 8 lanes are one vector (4 SSE2 registers
 * in the baseline build), and on x86 CPUs with AVX2 two vectors of 4
 * (sliced_dots_avx2, chosen at run time). */
/* The sliced dots stream the copy's entries (a line of values, a column
 * and a byte each); the hardware prefetcher follows the streams but runs too
 * few lines ahead of them (ijcnn1, AMD EPYC with AVX2: 60% of the SBP's
 * time was sliced_dots, most of its samples on the loads of the values),
 * so each entry asks for the values of the entry SS_ROW_PREFETCH on, and
 * each slice (starting at entry a) for the columns and bytes there (a line
 * of them serves 32 and 64 entries). The arrays have room for those
 * addresses past their last entry. */
static inline void prefetch_entry(const SsRowCopy *copy, int64_t q)
{
#if defined(__GNUC__)
  __builtin_prefetch(copy->values + (q + SS_ROW_PREFETCH) * SS_ROW_SLICE);
#else
  (void)copy, (void)q;
#endif
}

static inline void prefetch_slice(const SsRowCopy *copy, int64_t a)
{
#if defined(__GNUC__)
  __builtin_prefetch(copy->columns + a + SS_ROW_PREFETCH);
  __builtin_prefetch(copy->even + a + SS_ROW_PREFETCH);
#else
  (void)copy, (void)a;
#endif
}

/* Slice s's sums (its rows from @p row on, in a call for rows first ..
 * first + len - 1) to their rows' places in out: a whole slice with its 8
 * stores spelled out, the row's last slice lane by lane. */
static inline void store_slice(const SsRowCopy *copy, int64_t s, int64_t first, int64_t len,
                               int64_t row, const double *sum, double *out)
{
  enum { L = SS_ROW_SLICE, B = SS_KERNEL_ROW_BLOCK };
  const uint8_t *lane = copy->lane + s * L;
  double *block = out + (uint64_t)(row - first) / B * B; /* first: a block's first row */
  if (first + len - row >= L) {
    for (int l = 0; l < L; ++l) block[lane[l]] = sum[l];
  } else {
    for (int64_t l = 0; l < first + len - row; ++l) block[lane[l]] = sum[l];
  }
}

#if defined(__GNUC__)
typedef double SsSliceLanes __attribute__((vector_size(SS_ROW_SLICE * sizeof(double))));
typedef int64_t SsSliceMask __attribute__((vector_size(SS_ROW_SLICE * sizeof(int64_t))));

static void sliced_dots(const SsRowCopy *copy, int64_t first, int64_t len, const double *zd,
                        double *out)
{
  enum { L = SS_ROW_SLICE, B = SS_KERNEL_ROW_BLOCK };
  const SsSliceMask bit = {1, 2, 4, 8, 16, 32, 64, 128}, none = {0};
  for (int64_t row = first, s = first / L; row < first + len; row += L, ++s) {
    const int64_t a = copy->slice_start[s], width = copy->slice_start[s + 1] - a;
    prefetch_slice(copy, a);
    SsSliceLanes s0 = {0}, s1 = {0};
    for (int64_t q = a; q < a + width; ++q) {
      SsSliceLanes v;
      prefetch_entry(copy, q);
      memcpy(&v, copy->values + q * L, sizeof v);
      const SsSliceLanes t = v * zd[copy->columns[q]];
      if (copy->even[q] == 0xFF) {
        s0 += t; /* every lane: an even position, or no entry */
      } else if (copy->even[q] == 0) {
        s1 += t;
      } else {
        const SsSliceMask even = ((none + copy->even[q]) & bit) != none;
        s0 += (SsSliceLanes)((SsSliceMask)t & even);
        s1 += (SsSliceLanes)((SsSliceMask)t & ~even);
      }
    }
    double sum[L];
    const SsSliceLanes sums = s0 + s1;
    memcpy(sum, &sums, sizeof sum);
    store_slice(copy, s, first, len, row, sum, out);
  }
}

#if defined(SS_X86_CPU_DISPATCH)
/* sliced_dots for CPUs with AVX2 (AVX-512 ones too): each 8-lane sum as
 * two vectors of 4 lanes, a lane's operations unchanged, so the same bits.
 * Compiled for AVX2, GCC 12 spills sliced_dots' 8-lane vectors to the
 * stack (ijcnn1's dots: 14 ns a row, against 5.5 for the SSE2 baseline
 * and 2.2 for AVX-512 registers, on the same AMD EPYC); in halves they
 * take 2.1 ns a row on that CPU, whether built for AVX2 or AVX-512. */
typedef double SsSliceHalf __attribute__((vector_size(SS_ROW_SLICE / 2 * sizeof(double))));
typedef int64_t SsSliceHalfMask __attribute__((vector_size(SS_ROW_SLICE / 2 * sizeof(int64_t))));

__attribute__((target("avx2"))) static void sliced_dots_avx2(const SsRowCopy *copy, int64_t first,
                                                             int64_t len, const double *zd,
                                                             double *out)
{
  enum { L = SS_ROW_SLICE, B = SS_KERNEL_ROW_BLOCK, H = SS_ROW_SLICE / 2 };
  const SsSliceHalfMask low = {1, 2, 4, 8}, high = {16, 32, 64, 128}, none = {0};
  for (int64_t row = first, s = first / L; row < first + len; row += L, ++s) {
    const int64_t a = copy->slice_start[s], width = copy->slice_start[s + 1] - a;
    prefetch_slice(copy, a);
    /* separate variables, not arrays: GCC keeps these in registers */
    SsSliceHalf s0l = {0}, s0h = {0}, s1l = {0}, s1h = {0};
    for (int64_t q = a; q < a + width; ++q) {
      SsSliceHalf vl, vh;
      prefetch_entry(copy, q);
      memcpy(&vl, copy->values + q * L, sizeof vl);
      memcpy(&vh, copy->values + q * L + H, sizeof vh);
      const double zc = zd[copy->columns[q]];
      const SsSliceHalf tl = vl * zc, th = vh * zc;
      if (copy->even[q] == 0xFF) {
        s0l += tl;
        s0h += th;
      } else if (copy->even[q] == 0) {
        s1l += tl;
        s1h += th;
      } else {
        const SsSliceHalfMask el = ((none + copy->even[q]) & low) != none;
        const SsSliceHalfMask eh = ((none + copy->even[q]) & high) != none;
        s0l += (SsSliceHalf)((SsSliceHalfMask)tl & el);
        s1l += (SsSliceHalf)((SsSliceHalfMask)tl & ~el);
        s0h += (SsSliceHalf)((SsSliceHalfMask)th & eh);
        s1h += (SsSliceHalf)((SsSliceHalfMask)th & ~eh);
      }
    }
    double sum[L];
    const SsSliceHalf sum_low = s0l + s1l, sum_high = s0h + s1h;
    memcpy(sum, &sum_low, sizeof sum_low);
    memcpy(sum + H, &sum_high, sizeof sum_high);
    store_slice(copy, s, first, len, row, sum, out);
  }
}
#endif
#else
static void sliced_dots(const SsRowCopy *copy, int64_t first, int64_t len, const double *zd,
                        double *out)
{
  enum { L = SS_ROW_SLICE, B = SS_KERNEL_ROW_BLOCK };
  for (int64_t row = first, s = first / L; row < first + len; row += L, ++s) {
    const int64_t a = copy->slice_start[s], width = copy->slice_start[s + 1] - a;
    prefetch_slice(copy, a);
    double s0[L] = {0}, s1[L] = {0};
    for (int64_t q = a; q < a + width; ++q) {
      prefetch_entry(copy, q);
      const double zc = zd[copy->columns[q]];
      for (int l = 0; l < L; ++l) {
        const double t = copy->values[q * L + l] * zc;
        if ((copy->even[q] >> l) & 1) s0[l] += t;
        else s1[l] += t;
      }
    }
    double sum[L];
    for (int l = 0; l < L; ++l) sum[l] = s0[l] + s1[l];
    store_slice(copy, s, first, len, row, sum, out);
  }
}
#endif

/* dots() over a copy; false (nothing written) when it cannot serve (a bit
 * copy without the scored row's bits @p zb: the CSR dots then). */
static bool copied_dots(const SsRowCopy *copy, const uint64_t *zb, int64_t first, int64_t len,
                        const double *zd, double *out)
{
  if (copy->bits) {
    if (!zb) return false;
    bit_dots(copy, zb, first, len, out);
    return true;
  }
  /* whole blocks: a slice's rows are spread over its block */
  if (copy->values && first % SS_KERNEL_ROW_BLOCK == 0 &&
      (len % SS_KERNEL_ROW_BLOCK == 0 || first + len == copy->num_rows)) {
#if defined(SS_X86_CPU_DISPATCH)
    if (__builtin_cpu_supports("avx2")) {
      sliced_dots_avx2(copy, first, len, zd, out);
      return true;
    }
#endif
    sliced_dots(copy, first, len, zd, out);
    return true;
  }
  return false;
}

/* A CSR product term: v[k] x, or x where every stored value is 1 (unit:
 * 1 * x is x exactly, so the sums below are the same bits without loading
 * the values). */
#define CSR_TERM(unit, v, k, x) ((unit) ? (x) : (v)[k] * (x))

/* out[0] and out[1]: the CSR dots of the two consecutive rows [a, b) and
 * [b, e) with zd, each summed exactly as ss_csr_dot_f64 sums it (two
 * partial sums over even and odd entries, the odd tail into the even one),
 * the two rows' loads interleaved so that their latencies overlap. Called
 * with a constant unit, so each caller gets its own loop. */
static inline void two_csr_dots(const double *v, const int32_t *j, int64_t a, int64_t b, int64_t e,
                                const double *zd, bool unit, double *out)
{
  const int64_t n0 = b - a, n1 = e - b, both = (n0 < n1 ? n0 : n1) & ~(int64_t)1;
  const double *v0 = unit ? NULL : v + a, *v1 = unit ? NULL : v + b;
  const int32_t *j0 = j + a, *j1 = j + b;
  double s0 = 0, s1 = 0, t0 = 0, t1 = 0;
  int64_t k = 0;
  for (; k < both; k += 2) {
    s0 += CSR_TERM(unit, v0, k, zd[j0[k]]);
    t0 += CSR_TERM(unit, v1, k, zd[j1[k]]);
    s1 += CSR_TERM(unit, v0, k + 1, zd[j0[k + 1]]);
    t1 += CSR_TERM(unit, v1, k + 1, zd[j1[k + 1]]);
  }
  int64_t k0 = k, k1 = k;
  for (; k0 + 2 <= n0; k0 += 2) {
    s0 += CSR_TERM(unit, v0, k0, zd[j0[k0]]);
    s1 += CSR_TERM(unit, v0, k0 + 1, zd[j0[k0 + 1]]);
  }
  if (k0 < n0) s0 += CSR_TERM(unit, v0, k0, zd[j0[k0]]);
  for (; k1 + 2 <= n1; k1 += 2) {
    t0 += CSR_TERM(unit, v1, k1, zd[j1[k1]]);
    t1 += CSR_TERM(unit, v1, k1 + 1, zd[j1[k1 + 1]]);
  }
  if (k1 < n1) t0 += CSR_TERM(unit, v1, k1, zd[j1[k1]]);
  out[0] = s0 + s1;
  out[1] = t0 + t1;
}

/* ss_csr_dot_f64 of the row [a, e) where every stored value is 1. */
static inline double csr_unit_dot(const int32_t *j, int64_t a, int64_t e, const double *zd)
{
  double s0 = 0, s1 = 0;
  int64_t k = a;
  for (; k + 2 <= e; k += 2) {
    s0 += zd[j[k]];
    s1 += zd[j[k + 1]];
  }
  if (k < e) s0 += zd[j[k]];
  return s0 + s1;
}

/* out[k] = <x_r, zd> for k < len, r = rows[k] (rows NULL: r = first + k),
 * one loop per layout x type; unit: X is CSR and its stored values are
 * all 1 (ss_data_unit_values). Consecutive rows against the row z (zd its
 * scatter, zb its bits for a bit copy, else NULL) are summed over @p copy
 * when it has one (NULL: none). */
static void dots(const SsData *X, const SsRowCopy *copy, const uint64_t *zb, const int64_t *rows,
                 int64_t first, int64_t len, const double *zd, bool unit, double *out)
{
  const int64_t d = X->dimension;
  if (!rows && copy && copy->num_rows > 0 && copied_dots(copy, zb, first, len, zd, out)) return;
  if (X->layout == SS_LAYOUT_DENSE) {
    const int64_t stride = X->row_stride;
    if (X->dtype == SS_DTYPE_FLOAT32) {
      const float *base = X->values;
      for (int64_t k = 0; k < len; ++k) {
        int64_t r = rows ? rows[k] : first + k;
        out[k] = ss_dense_dot_f32(base + r * stride, d, zd);
      }
    } else {
      ss_dense_dots_f64(X->values, stride, d, rows, first, len, zd, out);
    }
  } else if (unit) {
    const int64_t *p = X->indptr;
    const int32_t *j = X->indices;
    int64_t k = 0;
    if (!rows) {
      for (; k + 2 <= len; k += 2) {
        const int64_t r = first + k;
        two_csr_dots(NULL, j, p[r], p[r + 1], p[r + 2], zd, true, out + k);
      }
    }
    for (; k < len; ++k) {
      const int64_t r = rows ? rows[k] : first + k;
      out[k] = csr_unit_dot(j, p[r], p[r + 1], zd);
    }
  } else {
    const int64_t *p = X->indptr;
    const int32_t *j = X->indices;
    if (X->dtype == SS_DTYPE_FLOAT32) {
      const float *v = X->values;
      for (int64_t k = 0; k < len; ++k) {
        int64_t r = rows ? rows[k] : first + k;
        /* an empty row: no offset (v and j may be NULL when nnz = 0) */
        out[k] = p[r + 1] > p[r] ? ss_csr_dot_f32(v + p[r], j + p[r], p[r + 1] - p[r], zd) : 0.0;
      }
    } else {
      const double *v = X->values;
      if (!rows && v) {
        /* consecutive rows: two at a time, their gathers interleaved (v is
         * NULL only when there is no entry at all: the loop below) */
        int64_t k = 0;
        for (; k + 2 <= len; k += 2) {
          const int64_t r = first + k;
          two_csr_dots(v, j, p[r], p[r + 1], p[r + 2], zd, false, out + k);
        }
        if (k < len) {
          const int64_t r = first + k;
          out[k] = p[r + 1] > p[r] ? ss_csr_dot_f64(v + p[r], j + p[r], p[r + 1] - p[r], zd) : 0.0;
        }
        return;
      }
      for (int64_t k = 0; k < len; ++k) {
        int64_t r = rows ? rows[k] : first + k;
        /* an empty row: no offset (v and j may be NULL when nnz = 0) */
        out[k] = p[r + 1] > p[r] ? ss_csr_dot_f64(v + p[r], j + p[r], p[r + 1] - p[r], zd) : 0.0;
      }
    }
  }
}

/* The rbf's values from squared distances, out[k] = exp(-g max(0, out[k])),
 * and from dots with consecutive rows' norms, out[k] = exp(-g max(0,
 * z_norm2 + norms2[k] - 2 out[k])): straight-line loops (vexp.h) compiled
 * for wider vectors where the CPU has them (SS_VECTOR_CLONES), every lane
 * doing the scalar code's operations, so the values are the same bits on
 * any CPU. A NaN distance (values that overflow when squared, which only
 * scoring meets: training refuses them) stays NaN, so the score says it;
 * max(0, NaN) = 0 made it K = 1, a finite, wrong score. */
SS_VECTOR_CLONES static void rbf_of_distances(double *out, int64_t len, double g)
{
  for (int64_t k = 0; k < len; ++k) out[k] = ss_vexp_kernel(-g * (out[k] < 0 ? 0.0 : out[k]));
}

SS_VECTOR_CLONES static void rbf_of_dots(double *out, const double *norms2, int64_t len,
                                         double z_norm2, double g)
{
  for (int64_t k = 0; k < len; ++k) {
    const double distance2 = z_norm2 + norms2[k] - 2.0 * out[k];
    out[k] = ss_vexp_kernel(-g * (distance2 < 0 ? 0.0 : distance2));
  }
}

/* ------------------------------------------------------------------------ */
/*            Float32 rows of the rbf kernel (SS_KERNEL_ROWS_FLOAT32)         */
/* ------------------------------------------------------------------------ */

/* The float path, chosen by the object for rbf on float32 data (docs:
 * "Float32 kernel rows" in kernel.rst):
 *  - dense rows of SS_F32_MIN_DENSE to SS_F32_MAX_SCATTER features: the
 *    dot products in single precision, 8 fixed lanes (one AVX2 vector)
 *    summed pairwise at the end, so every CPU adds in the same order; z is
 *    rounded to float (exact: it is a row of the float32 data) on the
 *    stack. Shorter rows keep the double dots: the lanes' tail and final
 *    sum cost more than they save (ijcnn1 made dense, d = 22: 20 against
 *    11 ns per evaluation; a9a dense, d = 123: 32 against 41, SBP);
 *    longer ones too (the stack copy of z);
 *  - CSR rows: the double dots of the float64 path (a product of two floats
 *    is exact in double, and the gather, not the arithmetic, is their cost);
 *  - then the distance in double, rounded to float, and ss_vexpf
 *    (vexp_f32.h, 8 or 16 lanes), widened to double on store.
 * Each entry is computed alone, so the values do not depend on the block
 * partition or the threads. */

#define SS_F32_DOT_LANES 8
#define SS_F32_MIN_DENSE 64
#define SS_F32_MAX_SCATTER 1024

static inline float dense_dot_f32_lanes(const float *x, const float *z, int64_t d)
{
  float acc[SS_F32_DOT_LANES] = {0};
  int64_t k = 0;
  for (; k + SS_F32_DOT_LANES <= d; k += SS_F32_DOT_LANES) {
    for (int l = 0; l < SS_F32_DOT_LANES; ++l) acc[l] += x[k + l] * z[k + l];
  }
  for (int l = 0; k + l < d; ++l) acc[l] += x[k + l] * z[k + l];
  for (int w = SS_F32_DOT_LANES / 2; w > 0; w /= 2) {
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  }
  return acc[0];
}

/* out[k] = <x_r, zf> in float for the dense float32 rows r of rows[k]
 * (rows NULL: lo + k), k < len. */
SS_VECTOR_CLONES static void dense_dots_f32(const SsData *X, const int64_t *rows, int64_t lo,
                                            int64_t len, const float *zf, double *out)
{
  const float *base = X->values;
  for (int64_t k = 0; k < len; ++k) {
    const int64_t r = rows ? rows[k] : lo + k;
    out[k] = dense_dot_f32_lanes(base + r * X->row_stride, zf, X->dimension);
  }
}

/* out[k] = exp(-g max(0, z_norm2 + norms2[r] - 2 out[k])) for k < len <=
 * SS_KERNEL_ROW_BLOCK, r = rows[k] (rows NULL: lo + k), the exponent
 * rounded to float and the exp in float. */
SS_VECTOR_CLONES static void rbf_block_f32(double *out, const double *norms2, const int64_t *rows,
                                           int64_t lo, int64_t len, double z_norm2, double g)
{
  float x[SS_KERNEL_ROW_BLOCK];
  for (int64_t k = 0; k < len; ++k) {
    const double distance2 = z_norm2 + norms2[rows ? rows[k] : lo + k] - 2.0 * out[k];
    x[k] = (float)(-g * (distance2 < 0 ? 0.0 : distance2));
  }
  for (int64_t k = 0; k < len; ++k) out[k] = (double)ss_vexpf(x[k]);
}

/* row_block's rbf entries lo..lo+len-1 on float32 data (rows already
 * offset by lo). */
static void rbf_row_f32(const SsData *X, const SsRowCopy *copy, const uint64_t *zb, const double *norms2,
                        const int64_t *rows, int64_t lo, int64_t len, const double *zd,
                        double z_norm2, double g, bool unit, double *out)
{
  const int64_t d = X->dimension;
  if (X->layout == SS_LAYOUT_DENSE && d >= SS_F32_MIN_DENSE && d <= SS_F32_MAX_SCATTER) {
    float zf[SS_F32_MAX_SCATTER];
    for (int64_t k = 0; k < d; ++k) zf[k] = (float)zd[k];
    dense_dots_f32(X, rows, lo, len, zf, out);
  } else {
    dots(X, copy, zb, rows, lo, len, zd, unit, out);
  }
  for (int64_t b = 0; b < len; b += SS_KERNEL_ROW_BLOCK) {
    const int64_t c = len - b < SS_KERNEL_ROW_BLOCK ? len - b : SS_KERNEL_ROW_BLOCK;
    rbf_block_f32(out + b, norms2, rows ? rows + b : NULL, lo + b, c, z_norm2, g);
  }
}

/* out[0..hi - lo) = the row's entries lo..hi-1 (ss_kernel_row_threads);
 * flags: SsKernelRowFlags; copy, zb: as dots(). */
static void row_block(const SsKernel *kernel, const SsData *X, const SsRowCopy *copy, const uint64_t *zb,
                      const double *norms2, const int64_t *rows, int64_t lo, int64_t hi,
                      const double *zd, double z_norm2, unsigned flags, double *out)
{
  const int64_t len = hi - lo;
  const bool unit = flags & SS_ROWS_UNIT_VALUES;
  if (rows) rows += lo;
  if ((flags & SS_ROWS_FLOAT32) && kernel->type == SS_KERNEL_RBF && X->dtype == SS_DTYPE_FLOAT32) {
    rbf_row_f32(X, copy, zb, norms2, rows, lo, len, zd, z_norm2, kernel->gamma, unit, out);
    return;
  }
  if (kernel->type == SS_KERNEL_PRECOMPUTED) {
    /* zd holds K(z, x_1..x_n); rows index the training examples. */
    for (int64_t k = 0; k < len; ++k) out[k] = zd[rows ? rows[k] : lo + k];
    return;
  }
  dots(X, copy, zb, rows, lo, len, zd, unit, out);
  const double g = kernel->gamma, c0 = kernel->coef0;
  switch (kernel->type) {
  case SS_KERNEL_RBF:
    /* Listed rows: distances first (a gather of norms through rows), then
     * the values; consecutive rows: one loop. Neither loop has a branch or
     * a call, so both vectorise (and have AVX copies: SS_VECTOR_CLONES). */
    if (rows) {
      for (int64_t k = 0; k < len; ++k) out[k] = z_norm2 + norms2[rows[k]] - 2.0 * out[k];
      rbf_of_distances(out, len, g);
    } else {
      rbf_of_dots(out, norms2 + lo, len, z_norm2, g);
    }
    break;
  case SS_KERNEL_POLYNOMIAL:
    for (int64_t k = 0; k < len; ++k) out[k] = int_pow(g * out[k] + c0, kernel->degree);
    break;
  case SS_KERNEL_SIGMOID:
    for (int64_t k = 0; k < len; ++k) out[k] = tanh(g * out[k] + c0);
    break;
  default:
    break;
  }
}

/* The block [lo, hi) of block index b in a row of m entries. */
static inline void block_range(int64_t b, int64_t m, int64_t *lo, int64_t *hi)
{
  *lo = b * SS_KERNEL_ROW_BLOCK;
  *hi = *lo + SS_KERNEL_ROW_BLOCK < m ? *lo + SS_KERNEL_ROW_BLOCK : m;
}

/* A kernel row over fixed blocks: its arguments, for the pool's chunks. */
typedef struct RowJob {
  const SsKernel *kernel;
  const SsData *X;
  const double *norms2;
  const int64_t *rows;
  int64_t m;
  const double *zd;
  double z_norm2;
  double *out;              /* ss_kernel_row_threads: the whole row */
  SsKernelBlockFn consume;  /* ss_kernel_row_blocks: each block's consumer */
  void *context;
  unsigned flags;           /* SsKernelRowFlags */
  const SsRowCopy *copy;    /* ss_kernel_training_row_blocks: X's copy (NULL: none), */
  const uint64_t *zb;       /* and z's bits for a bit copy (NULL: none) */
} RowJob;

/* The bits of the copy's own row z (NULL: not a bit copy, or z < 0). */
static const uint64_t *own_bits(const SsRowCopy *copy, int64_t z)
{
  return copy && copy->bits && z >= 0 ? copy->bits + z * copy->words : NULL;
}

bool ss_row_copy_bits_of(const SsRowCopy *copy, const SsData *X, int64_t i, uint64_t *bits)
{
  if (!copy || !copy->bits || X->layout != SS_LAYOUT_CSR) return false;
  for (int64_t w = 0; w < copy->words; ++w) bits[w] = 0;
  for (int64_t k = X->indptr[i]; k < X->indptr[i + 1]; ++k) {
    const int32_t c = X->indices[k];
    bits[c / 64] |= UINT64_C(1) << (c % 64);
  }
  return true;
}

/* Blocks [begin, end) of ss_kernel_row_threads, into the row. */
static void row_chunks(void *job, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* one job writes no per-thread scratch */
  const RowJob *r = job;
  for (int64_t b = begin; b < end; ++b) {
    int64_t lo, hi;
    block_range(b, r->m, &lo, &hi);
    row_block(r->kernel, r->X, r->copy, r->zb, r->norms2, r->rows, lo, hi, r->zd, r->z_norm2,
              r->flags, r->out + lo);
  }
}

void ss_kernel_row_threads(const SsKernel *kernel, const SsData *X, const double *norms2,
                           const int64_t *rows, int64_t m, const double *zd, double z_norm2,
                           unsigned flags, double *out, SsThreads threads)
{
  SsThreadPool *pool = ss_threads_pool(threads, m);
  if (!pool) {
    row_block(kernel, X, NULL, NULL, norms2, rows, 0, m, zd, z_norm2, flags, out);
    return;
  }
  RowJob job = {.kernel = kernel, .X = X, .norms2 = norms2, .rows = rows, .m = m, .zd = zd,
                .z_norm2 = z_norm2, .out = out, .flags = flags};
  ss_parallel_for(pool, ss_kernel_row_num_blocks(m), row_chunks, &job);
}

void ss_kernel_training_row_threads(const SsKernel *kernel, const SsData *X, unsigned flags,
                                    const SsRowCopy *copy, const double *norms2, int64_t z,
                                    const double *zd, double z_norm2, SsThreads threads,
                                    double *out)
{
  const int64_t m = X->num_data;
  RowJob job = {.kernel = kernel, .X = X, .norms2 = norms2, .m = m, .zd = zd, .z_norm2 = z_norm2,
                .out = out, .flags = flags, .copy = copy, .zb = own_bits(copy, z)};
  ss_parallel_for(ss_threads_pool(threads, m), ss_kernel_row_num_blocks(m), row_chunks, &job);
}

/* Blocks [begin, end) of ss_kernel_row_blocks: each computed into the
 * thread's k, then consumed. */
static void consume_chunks(void *job, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* one job writes no per-thread scratch */
  const RowJob *r = job;
  double k[SS_KERNEL_ROW_BLOCK]; /* one block's values, private to the thread, in L1 */
  for (int64_t b = begin; b < end; ++b) {
    int64_t lo, hi;
    block_range(b, r->m, &lo, &hi);
    row_block(r->kernel, r->X, r->copy, r->zb, r->norms2, r->rows, lo, hi, r->zd, r->z_norm2,
              r->flags, k);
    r->consume(r->context, b, lo, hi, k);
  }
}

void ss_kernel_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                          const double *norms2, const int64_t *rows, int64_t m, const double *zd,
                          double z_norm2, SsThreads threads, SsKernelBlockFn consume,
                          void *context)
{
  /* A short row runs on the caller (a NULL pool): it pays nothing for threads. */
  RowJob job = {.kernel = kernel, .X = X, .norms2 = norms2, .rows = rows, .m = m, .zd = zd,
                .z_norm2 = z_norm2, .consume = consume, .context = context, .flags = flags};
  ss_parallel_for(ss_threads_pool(threads, m), ss_kernel_row_num_blocks(m), consume_chunks, &job);
}

void ss_kernel_training_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                                   const SsRowCopy *copy, const double *norms2, int64_t z,
                                   const double *zd, double z_norm2, SsThreads threads,
                                   SsKernelBlockFn consume, void *context)
{
  ss_kernel_copy_row_blocks(kernel, X, flags, copy, norms2, own_bits(copy, z), zd, z_norm2, threads,
                            consume, context);
}

void ss_kernel_copy_row_blocks(const SsKernel *kernel, const SsData *X, unsigned flags,
                               const SsRowCopy *copy, const double *norms2, const uint64_t *z_bits,
                               const double *zd, double z_norm2, SsThreads threads,
                               SsKernelBlockFn consume, void *context)
{
  const int64_t m = X->num_data;
  RowJob job = {.kernel = kernel, .X = X, .norms2 = norms2, .m = m, .zd = zd, .z_norm2 = z_norm2,
                .consume = consume, .context = context, .flags = flags, .copy = copy, .zb = z_bits};
  ss_parallel_for(ss_threads_pool(threads, m), ss_kernel_row_num_blocks(m), consume_chunks, &job);
}

void ss_kernel_row_from_scattered(const SsKernel *kernel, const SsData *X, const double *norms2,
                                  const int64_t *rows, int64_t m, const double *zd,
                                  double z_norm2, double *out)
{
  row_block(kernel, X, NULL, NULL, norms2, rows, 0, m, zd, z_norm2, 0, out);
}

double ss_kernel_diagonal(const SsKernel *kernel, const SsData *X, int64_t i, double norm2)
{
  if (kernel->type == SS_KERNEL_PRECOMPUTED) {
    if (X->layout == SS_LAYOUT_DENSE) {
      return X->dtype == SS_DTYPE_FLOAT32
                 ? (double)((const float *)X->values)[i * X->row_stride + i]
                 : ((const double *)X->values)[i * X->row_stride + i];
    }
    for (int64_t k = X->indptr[i]; k < X->indptr[i + 1]; ++k) {
      if (X->indices[k] == i) {
        return X->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)X->values)[k]
                                            : ((const double *)X->values)[k];
      }
    }
    return 0.0;
  }
  return ss_kernel_value(kernel, norm2, norm2, norm2);
}

/* ------------------------------------------------------------------------ */
/*                                Public API                                */
/* ------------------------------------------------------------------------ */

SsStatus ss_kernel_squared_norms(const SsData *data, double *norms2)
{
  if (!data || !norms2 || data->homkermap) return SS_ERR_BAD_ARG;
  for (int64_t i = 0; i < data->num_data; ++i) norms2[i] = ss_data_row_squared_norm(data, i);
  return SS_OK;
}

SsStatus ss_kernel_row(const SsKernel *kernel, const SsData *queries, int64_t q,
                       const SsData *data, const double *norms2, double *out,
                       int64_t *num_evaluations)
{
  if (ss_kernel_check(kernel) != SS_OK || !queries || !data || !out) return SS_ERR_BAD_ARG;
  if (queries->homkermap || data->homkermap) return SS_ERR_BAD_ARG;
  if (q < 0 || q >= queries->num_data) return SS_ERR_BAD_ARG;
  const int64_t n = data->num_data;
  const int64_t d = kernel->type == SS_KERNEL_PRECOMPUTED ? n : data->dimension;
  if (queries->dimension != d) return SS_ERR_BAD_ARG;

  double *zd = calloc((size_t)d, sizeof(double));
  double *own_norms = NULL;
  if (!zd) return SS_ERR_ALLOC;
  if (kernel->type == SS_KERNEL_RBF && !norms2) {
    own_norms = malloc((size_t)n * sizeof(double));
    if (!own_norms) {
      free(zd);
      return SS_ERR_ALLOC;
    }
    ss_kernel_squared_norms(data, own_norms);
    norms2 = own_norms;
  }
  ss_data_scatter_row(queries, q, zd);
  double z_norm2 = kernel->type == SS_KERNEL_RBF ? ss_data_row_squared_norm(queries, q) : 0.0;
  ss_kernel_row_from_scattered(kernel, data, norms2, NULL, n, zd, z_norm2, out);
  free(own_norms);
  free(zd);
  if (num_evaluations) *num_evaluations += n;
  return SS_OK;
}
