/* test_kernel_row_copy.c -- row copies of CSR training data (SsRowCopy,
 * kernel.c "Row copies"): which copy is made, that the kernel rows over it
 * equal the rows over CSR bit for bit (values, float32 values, 0/1 values;
 * every block size, lane and parity; 1 and 2 threads), that the exact
 * solver's cache computes its rows over it and over its active rows
 * compacted with the same values, and that the SBP's and the exact
 * solver's iterates are the same with and without it. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/common/thread_pool.h"
#include "../../src/core/kernel/kernel_cache.h"
#include "../../src/core/kernel/kernel_internal.h"
#include "minitest.h"
#include "stochsvm/kernel_svm.h"
#include "testutil.h"

/* N is no multiple of the row block or of a slice: the last block and the
 * last slice are partial. */
enum { RN = 1203, RMAX = 40 };

typedef struct CsrRows {
  int64_t indptr[RN + 1];
  int32_t indices[RN * RMAX];
  double values[RN * RMAX];
  float values32[RN * RMAX];
  int64_t d;
} CsrRows;

/* Rows of 0 to @p longest entries over d columns, sorted; @p patterns > 0:
 * each row's columns are one of that many fixed sets (rows with shared
 * columns, as one-hot blocks make them), shuffled over the rows; 0: random
 * columns. Values in [-0.5, 0.5), or all 1 (@p unit). */
static void make_rows(CsrRows *m, int64_t d, int64_t longest, int patterns, bool unit,
                      uint64_t seed)
{
  uint64_t state = seed;
  m->d = d;
  m->indptr[0] = 0;
  int64_t nnz = 0;
  for (int64_t i = 0; i < RN; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t pattern = patterns ? (state >> 33) % (uint64_t)patterns : 0;
    const int64_t len = patterns ? (int64_t)(pattern % (uint64_t)(longest + 1))
                                 : (int64_t)((state >> 40) % (uint64_t)(longest + 1));
    for (int64_t c = 0, taken = 0; c < d && taken < len; ++c) {
      /* take column c with a probability that leaves len columns in all */
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint64_t draw = patterns ? (pattern * 2654435761u + (uint64_t)c * 40503u) >> 3
                                     : state >> 20;
      if ((int64_t)(draw % (uint64_t)(d - c)) < len - taken) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double v = unit ? 1.0 : (double)(state >> 11) * 0x1p-53 - 0.5;
        m->indices[nnz] = (int32_t)c;
        m->values[nnz] = v;
        m->values32[nnz] = (float)v;
        ++nnz;
        ++taken;
      }
    }
    m->indptr[i + 1] = nnz;
  }
}

/* y[i] = +-1 by the sign of a fixed linear function of row i (ties by
 * parity): a label that depends on the row, so the problem is not trivial. */
static void label_rows(const CsrRows *m, double *y)
{
  for (int64_t i = 0; i < RN; ++i) {
    double s = 0;
    for (int64_t k = m->indptr[i]; k < m->indptr[i + 1]; ++k) {
      s += m->values[k] * (m->indices[k] % 3 - 1);
    }
    y[i] = s > 0 || (s == 0 && i % 2) ? 1.0 : -1.0;
  }
}

/* The solver tests' problem: 30 columns, rows of at most 9 entries (8
 * repeated patterns, or 0/1 values with @p unit), labelled, as CSR data. */
static SsStatus labelled_problem(CsrRows *m, bool unit, uint64_t seed, double *y, SsData *data)
{
  make_rows(m, 30, 9, unit ? 0 : 8, unit, seed);
  label_rows(m, y);
  return ss_data_init_csr(data, SS_DTYPE_FLOAT64, m->values, m->indptr, m->indices, RN, m->d);
}

static void collect(void *context, int64_t block, int64_t lo, int64_t hi, const double *k)
{
  (void)block;
  memcpy((double *)context + lo, k, (size_t)(hi - lo) * sizeof(double));
}

/* The rows K(x_z, .) for several z over @p copy equal those of
 * ss_kernel_row_blocks (the CSR dots), on 1 and 2 threads. */
static void check_rows_match(const SsData *data, unsigned flags, const SsRowCopy *copy)
{
  static double norms2[RN], want[RN], got[RN];
  double *zd = calloc((size_t)data->dimension, sizeof(double));
  REQUIRE(zd);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.9, 0, 1) == SS_OK);
  for (int64_t i = 0; i < RN; ++i) norms2[i] = ss_data_row_squared_norm(data, i);
  for (int64_t z = 0; z < RN; z += 97) {
    ss_data_scatter_row(data, z, zd);
    const SsThreads serial = {.count = 1};
    ss_kernel_row_blocks(&kernel, data, flags, norms2, NULL, RN, zd, norms2[z], serial, collect,
                         want);
    for (int threads = 1; threads <= 2; ++threads) {
      const SsThreads t = {.count = threads, .min_length = 16};
      for (int64_t k = 0; k < RN; ++k) got[k] = -1;
      ss_kernel_training_row_blocks(&kernel, data, flags, copy, norms2, z, zd, norms2[z], t,
                                    collect, got);
      CHECK(tu_same_bits(got, want, RN));
    }
    ss_data_clear_row(data, z, zd);
  }
  free(zd);
}

/* Values (float64 and float32) with shared column patterns: a sliced copy
 * whose rows are the CSR rows. */
void test_kernel_row_copy_sliced(void)
{
  static CsrRows m;
  static const int64_t longest[] = {1, 5, 13, 40};
  for (int c = 0; c < 4; ++c) {
    make_rows(&m, 60, longest[c], 12, false, 3 + (uint64_t)c);
    for (int f32 = 0; f32 < 2; ++f32) {
      SsData data;
      REQUIRE(ss_data_init_csr(&data, f32 ? SS_DTYPE_FLOAT32 : SS_DTYPE_FLOAT64,
                               f32 ? (const void *)m.values32 : (const void *)m.values, m.indptr,
                               m.indices, RN, m.d) == SS_OK);
      CHECK(!ss_data_unit_values(&data));
      const unsigned flags = f32 ? SS_ROWS_FLOAT32 : 0u;
      SsRowCopy copy = {0};
      CHECK_EQ_INT(ss_row_copy_update(&copy, &data, flags), SS_OK);
      CHECK(copy.num_rows == RN && copy.values && !copy.bits && copy.bytes > 0);
      check_rows_match(&data, flags, &copy);
      /* made again from the arrays as they are now */
      CHECK_EQ_INT(ss_row_copy_update(&copy, &data, flags), SS_OK);
      CHECK(copy.num_rows == RN);
      check_rows_match(&data, flags, &copy);
      ss_row_copy_free(&copy);
      CHECK(copy.num_rows == 0 && !copy.values);
    }
  }
}

/* 0/1 rows: a bit copy of 1 to 4 words a row up to
 * SS_ROW_BITS_MAX_DIMENSION features, none beyond. */
void test_kernel_row_copy_bits(void)
{
  static CsrRows m;
  static const int64_t dims[] = {9, 64, 65, 130, 256, 257};
  for (int c = 0; c < 6; ++c) {
    make_rows(&m, dims[c], dims[c] < RMAX ? dims[c] : RMAX, 0, true, 17 + (uint64_t)c);
    SsData data;
    REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, m.values, m.indptr, m.indices, RN, m.d) ==
            SS_OK);
    CHECK(ss_data_unit_values(&data));
    SsRowCopy copy = {0};
    CHECK_EQ_INT(ss_row_copy_update(&copy, &data, SS_ROWS_UNIT_VALUES), SS_OK);
    if (dims[c] <= SS_ROW_BITS_MAX_DIMENSION) {
      CHECK(copy.bits && copy.words == (dims[c] + 63) / 64);
    } else {
      CHECK(copy.num_rows == 0);
    }
    check_rows_match(&data, SS_ROWS_UNIT_VALUES, &copy);
    ss_row_copy_free(&copy);
  }
}

/* No copy where it would not pay: random columns (too many pads), dense
 * data; the rows without one are still the CSR rows. */
void test_kernel_row_copy_declined(void)
{
  static CsrRows m;
  make_rows(&m, 2000, 4, 0, false, 5);
  SsData data;
  REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, m.values, m.indptr, m.indices, RN, m.d) ==
          SS_OK);
  SsRowCopy copy = {0};
  CHECK_EQ_INT(ss_row_copy_update(&copy, &data, 0u), SS_OK);
  CHECK(copy.num_rows == 0 && !copy.values && !copy.bits);
  check_rows_match(&data, 0u, &copy);
  check_rows_match(&data, 0u, NULL);
  static double dense[RN * 3];
  for (int64_t k = 0; k < RN * 3; ++k) dense[k] = (double)(k % 7) - 3.0;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, dense, RN, 3, 3) == SS_OK);
  CHECK_EQ_INT(ss_row_copy_update(&copy, &data, 0u), SS_OK);
  CHECK(copy.num_rows == 0);
}

/* The SBP with and without its row copy (sliced and bits), without and with
 * the bias, on 1 and 2 threads: the same run bit for bit. (A last-bit
 * change of a dot seldom reaches the duals, which sum many rows: the row
 * tests above are the bitwise check; this one catches a wrong row.) */
void test_kernel_row_copy_sbp_same_iterates(void)
{
  static CsrRows m;
  static double y[RN];
  for (int unit = 0; unit < 2; ++unit) {
    SsData data;
    REQUIRE(labelled_problem(&m, unit, 29, y, &data) == SS_OK);
    SsRowCopy copy = {0}; /* the copy the SBP makes of these rows */
    CHECK_EQ_INT(ss_row_copy_update(&copy, &data, unit ? SS_ROWS_UNIT_VALUES : 0u), SS_OK);
    CHECK(unit ? copy.bits != NULL : copy.values != NULL);
    check_rows_match(&data, unit ? SS_ROWS_UNIT_VALUES : 0u, &copy);
    ss_row_copy_free(&copy);
    SsKernel kernel;
    REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 2.0, 0, 1) == SS_OK);
    for (int bias = 0; bias < 2; ++bias) {
      SsKernelSvm *svm[3];
      for (int k = 0; k < 3; ++k) {
        svm[k] = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 1e-3);
        REQUIRE(svm[k]);
        CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[k], k != 0), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm[k], k == 2 ? 2 : 1), SS_OK);
        svm[k]->threads.min_length = 16;
        CHECK_EQ_INT(ss_kernel_svm_set_nu(svm[k], 0.1), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], 150), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm[k], 50), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_seed(svm[k], 3), SS_OK);
        if (bias) CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm[k], 1), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
      }
      CHECK(tu_same_kernel_run(svm[0], svm[1], RN));
      CHECK(tu_same_kernel_run(svm[0], svm[2], RN));
      for (int k = 0; k < 3; ++k) ss_kernel_svm_delete(svm[k]);
    }
  }
}

/* ss_kernel_svm_set_row_copy: on by default, 0 and 1 accepted, anything
 * else refused with the reason, the setting kept; a run that turns the copy
 * off between two train calls continues as one that never had it. */
void test_kernel_row_copy_setter(void)
{
  CHECK_EQ_INT(ss_kernel_svm_set_row_copy(NULL, 1), SS_ERR_BAD_ARG);
  static CsrRows m;
  static double y[RN];
  make_rows(&m, 30, 9, 8, false, 31);
  for (int64_t i = 0; i < RN; ++i) y[i] = m.indptr[i + 1] - m.indptr[i] > 4 ? 1.0 : -1.0;
  SsData data;
  REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, m.values, m.indptr, m.indices, RN, m.d) ==
          SS_OK);
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 2.0, 0, 1) == SS_OK);
  SsKernelSvm *svm[2];
  for (int k = 0; k < 2; ++k) {
    svm[k] = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, 1e-3);
    REQUIRE(svm[k]);
    CHECK_EQ_INT(ss_kernel_svm_get_row_copy(svm[k]), 1);
    CHECK_EQ_INT(ss_kernel_svm_set_nu(svm[k], 0.1), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], 60), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm[k], 30), SS_OK);
  }
  CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[0], 2), SS_ERR_BAD_ARG);
  CHECK(strstr(ss_kernel_svm_get_last_error(svm[0]), "enabled must be 0 or 1, got 2") != NULL);
  CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[0], -1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_kernel_svm_get_row_copy(svm[0]), 1);
  CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[1], 0), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_get_row_copy(svm[1]), 0);
  CHECK(ss_kernel_svm_get_last_error(svm[1])[0] == '\0');
  /* svm[0] trains with its copy, then without; svm[1] never has one */
  for (int k = 0; k < 2; ++k) CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
  CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[0], 0), SS_OK);
  for (int k = 0; k < 2; ++k) {
    CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], 120), SS_OK);
    CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
  }
  CHECK(tu_same_kernel_run(svm[0], svm[1], RN));
  for (int k = 0; k < 2; ++k) ss_kernel_svm_delete(svm[k]);
}

/* Slices whose rows hold a column at different parities (the masked sums
 * of sliced_dots and sliced_dots_avx2), with empty rows among them, odd d,
 * float64 and float32: the rows over the copy are the CSR rows bit for bit.
 * Row i holds 0, 1 or 2 of the columns 0..1 (by i % 4; i % 4 == 3: no
 * entry at all), then columns 2..12, so that column 2 sits at position 0,
 * 1 or 2 of its row, and one of the columns 13..20: 25 patterns, too many
 * for a block's slices to keep them apart. */
void test_kernel_row_copy_mixed_parity(void)
{
  static CsrRows m;
  uint64_t state = 41;
  int64_t nnz = 0;
  m.d = 21;
  m.indptr[0] = 0;
  for (int64_t i = 0; i < RN; ++i) {
    if (i % 4 != 3) {
      for (int64_t c = (i % 4 == 2) ? 2 : i % 4; c < m.d; ++c) {
        if (c == 1 && i % 4 == 0) continue; /* i % 4 == 0: column 0, then 2.. */
        if (c >= 13 && c != 13 + (i / 4) % 8) continue;
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        m.indices[nnz] = (int32_t)c;
        m.values[nnz] = (double)(state >> 11) * 0x1p-52 - 1.0;
        m.values32[nnz] = (float)m.values[nnz];
        ++nnz;
      }
    }
    m.indptr[i + 1] = nnz;
  }
  for (int f32 = 0; f32 < 2; ++f32) {
    SsData data;
    REQUIRE(ss_data_init_csr(&data, f32 ? SS_DTYPE_FLOAT32 : SS_DTYPE_FLOAT64,
                             f32 ? (const void *)m.values32 : (const void *)m.values, m.indptr,
                             m.indices, RN, m.d) == SS_OK);
    SsRowCopy copy = {0};
    CHECK_EQ_INT(ss_row_copy_update(&copy, &data, 0u), SS_OK);
    REQUIRE(copy.num_rows == RN && copy.values);
    int64_t mixed = 0;
    for (int64_t q = 0; q < copy.slice_start[(RN + SS_ROW_SLICE - 1) / SS_ROW_SLICE]; ++q) {
      mixed += copy.even[q] != 0 && copy.even[q] != 0xFF;
    }
    CHECK(mixed > 0);
    check_rows_match(&data, f32 ? SS_ROWS_FLOAT32 : 0u, &copy);
    ss_row_copy_free(&copy);
  }
}

/* The sliced copy's values start on a cache line (one line a column entry,
 * which the dots prefetch ahead), and num_entries counts the entries. */
void test_kernel_row_copy_aligned(void)
{
  static CsrRows m;
  for (int c = 0; c < 3; ++c) {
    make_rows(&m, 40, 5 + 4 * c, 10, false, 43 + (uint64_t)c);
    SsData data;
    REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, m.values, m.indptr, m.indices, RN, m.d) ==
            SS_OK);
    SsRowCopy copy = {0};
    CHECK_EQ_INT(ss_row_copy_update(&copy, &data, 0u), SS_OK);
    REQUIRE(copy.num_rows == RN && copy.values);
    CHECK((uintptr_t)copy.values % 64 == 0);
    const int64_t slices = ss_kernel_row_num_blocks(RN) * (SS_KERNEL_ROW_BLOCK / SS_ROW_SLICE);
    CHECK(copy.num_entries == copy.slice_start[slices] && copy.num_entries > 0);
    check_rows_match(&data, 0u, &copy);
    ss_row_copy_free(&copy);
    CHECK(!copy.values && !copy.values_memory);
  }
}

/* The SBP's averaged alpha (kept for the drawn examples only) against its
 * averaged responses c_bar, which it keeps for all: the model built from
 * the duals must give back what the diagnostics computed from c_bar, the
 * loss (1/n sum of hinge(y_j f(x_j)), f from the model) and the
 * regularizer (lambda / 2 sum_j dual_j y_j (f(x_j) - b)), to rounding; a
 * projection or average missed on an alpha shows as a relative gap of
 * 1e-3 or more. No bias and bias, sliced rows and 0/1 rows, 1 and 2
 * threads, warm start included. */
void test_kernel_sbp_drawn_alpha(void)
{
  static CsrRows m;
  static double y[RN], f[RN];
  const double lambda = 1e-3;
  for (int unit = 0; unit < 2; ++unit) {
    SsData data;
    REQUIRE(labelled_problem(&m, unit, 47, y, &data) == SS_OK);
    SsKernel kernel;
    REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 2.0, 0, 1) == SS_OK);
    for (int bias = 0; bias < 2; ++bias) {
      for (int threads = 1; threads <= 2; ++threads) {
        SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SBP, &kernel, &data, y, lambda);
        REQUIRE(svm);
        CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm, threads), SS_OK);
        svm->threads.min_length = 16;
        CHECK_EQ_INT(ss_kernel_svm_set_nu(svm, 0.1), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_seed(svm, 5), SS_OK);
        if (bias) CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm, 1), SS_OK);
        for (int64_t iterations = 300; iterations <= 600; iterations += 300) { /* then warm */
          CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm, iterations), SS_OK);
          CHECK_EQ_INT(ss_kernel_svm_set_diagnostic_frequency(svm, iterations), SS_OK);
          CHECK_EQ_INT(ss_kernel_svm_train(svm), SS_OK);
          const SsKernelSvmStatistics *st = ss_kernel_svm_get_statistics(svm);
          const double *dual = ss_kernel_svm_get_dual_variables(svm);
          const double b = ss_kernel_svm_get_bias(svm);
          REQUIRE(dual);
          CHECK_EQ_INT(ss_kernel_svm_decision_function(svm, &data, f), SS_OK);
          double loss = 0, w2 = 0;
          int64_t drawn = 0;
          for (int64_t j = 0; j < RN; ++j) {
            loss += fmax(0.0, 1.0 - y[j] * f[j]);
            w2 += dual[j] * y[j] * (f[j] - b);
            drawn += dual[j] != 0;
          }
          CHECK(drawn > 50 && drawn < RN);
          CHECK_REL(st->loss, loss / RN, 1e-9);
          CHECK_REL(st->regularizer, 0.5 * lambda * w2, 1e-9);
        }
        ss_kernel_svm_delete(svm);
      }
    }
  }
}

/* The exact solver's row cache (kernel_cache.c) over CSR rows, bit for bit
 * the CSR rows, with its copies and without (set_row_copy(0)): rows over an
 * active list of all but one example and of 8/9 of them (computed whole:
 * a cover of the others then computes nothing), of three quarters and of a
 * quarter of the examples (X's rows compacted, made again when the list
 * changes; the cover computes the rest whole), of examples in the list and
 * outside it; each row by position over the list, and by example once
 * complete. */
void test_kernel_row_copy_cache_rows(void)
{
  static CsrRows m;
  static double y[RN], want[RN];
  static int64_t active[RN], others[RN];
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.9, 0, 1) == SS_OK);
  for (int unit = 0; unit < 2; ++unit) {
    make_rows(&m, unit ? 130 : 60, unit ? 30 : 13, unit ? 0 : 12, unit, 47 + (uint64_t)unit);
    for (int64_t i = 0; i < RN; ++i) y[i] = i % 2 ? 1.0 : -1.0;
    SsData data;
    REQUIRE(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, m.values, m.indptr, m.indices, RN, m.d) ==
            SS_OK);
    for (int off = 0; off < 2; ++off) {
      SsKernelSvm *svm = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1e-3);
      REQUIRE(svm);
      CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm, !off), SS_OK);
      SsKernelCache cache;
      REQUIRE(ss_kernel_cache_init(&cache, RN, 4.0 * RN * sizeof(double) / 1048576.0, false) ==
              SS_OK);
      CHECK_EQ_INT(cache.capacity, 4);
      ss_kernel_cache_start_train(&cache);
      for (int l = 0; l < 4; ++l) {
        int64_t na = 0, nr = 0;
        for (int64_t k = 0; k < RN; ++k) {
          const bool in = l == 0 ? k != 4 : l == 1 ? k % 4 != 0 : l == 2 ? k % 4 == 1 : k % 9 != 0;
          if (in) active[na++] = k;
          else others[nr++] = k;
        }
        /* the whole row above 3/4 of the examples (SS_CACHE_WHOLE_ROW_ACTIVE), the second
           list the longest compacted one; the others' rows whole above 1/8
           (SS_CACHE_WHOLE_ROW_OTHER): the compacted lists' */
        const bool whole = l == 0 || l == 3;
        CHECK(whole ? na > 0.75 * RN : na <= 0.75 * RN && (l != 1 || na + 1 > 0.75 * RN));
        CHECK(whole != (nr > 0.125 * RN));
        ss_kernel_cache_grow_active(&cache); /* nothing cached serves the new list */
        REQUIRE(ss_kernel_cache_set_active(&cache, active, na) == SS_OK);
        /* one in the list, one outside; neither cached yet (a complete row would serve) */
        const int64_t zs[2] = {active[na * (l + 1) / 5], others[nr - 1 - l % 2]};
        CHECK(cache.slot_of[zs[0]] < 0 && cache.slot_of[zs[1]] < 0);
        for (int q = 0; q < 2; ++q) {
          const int64_t z = zs[q];
          ss_data_scatter_row(&data, z, svm->zd);
          ss_kernel_row_from_scattered(&kernel, &data, svm->norms2, NULL, RN, svm->zd,
                                       svm->norms2[z], want);
          ss_data_clear_row(&data, z, svm->zd);
          SsStatus status = SS_OK;
          const double *row = ss_kernel_cache_row(&cache, svm, z, active, na, &status);
          REQUIRE(row);
          bool same = true;
          for (int64_t k = 0; k < na; ++k) {
            same = same && memcmp(&row[k], &want[active[k]], sizeof(double)) == 0;
          }
          CHECK(same);
          /* the row made complete: nothing more to compute where it was computed whole */
          const int64_t misses = cache.misses;
          row = ss_kernel_cache_row_cover(&cache, svm, z, active, na, others, nr, &status);
          REQUIRE(row);
          CHECK_EQ_INT(cache.misses, misses + (whole ? off : 1));
          CHECK(memcmp(row, want, RN * sizeof(double)) == 0);
        }
        /* the compacted rows (not on the whole list, not with the copies off) */
        CHECK(cache.active.made == (!whole && !off));
        CHECK(cache.active.made ? cache.pos_of[zs[0]] >= 0 : true);
      }
      ss_kernel_cache_free(&cache);
      ss_kernel_svm_delete(svm);
    }
  }
}

/* The exact solver (the bias, shrinking, a cache of a few rows, so that rows
 * are computed over shrunk active sets) with and without its copies, on 1
 * and 2 threads, on sliced and bit-copied rows: the same run bit for bit. */
void test_kernel_row_copy_exact_same_iterates(void)
{
  static CsrRows m;
  static double y[RN];
  SsKernel kernel;
  REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 2.0, 0, 1) == SS_OK);
  for (int unit = 0; unit < 2; ++unit) {
    SsData data;
    REQUIRE(labelled_problem(&m, unit, 53, y, &data) == SS_OK);
    SsKernelSvm *svm[3];
    for (int k = 0; k < 3; ++k) {
      svm[k] = ss_kernel_svm_new(SS_KSOLVER_SDCA, &kernel, &data, y, 1.0 / (10.0 * RN));
      REQUIRE(svm[k]);
      CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[k], k != 0), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm[k], k == 2 ? 2 : 1), SS_OK);
      svm[k]->threads.min_length = 16;
      if (svm[k]->threads.pool) ss_thread_pool_set_adaptive(svm[k]->threads.pool, false);
      CHECK_EQ_INT(ss_kernel_svm_set_unregularized_bias(svm[k], 1), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_cache_size(svm[k], 8.0 * RN * sizeof(double) / 1048576.0),
                   SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_set_epsilon(svm[k], 1e-6), SS_OK);
      CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
    }
    CHECK(ss_kernel_svm_get_statistics(svm[0])->status == SS_SVM_STATUS_CONVERGED);
    CHECK(tu_same_kernel_run(svm[0], svm[1], RN));
    CHECK(tu_same_kernel_run(svm[0], svm[2], RN));
    for (int k = 0; k < 3; ++k) ss_kernel_svm_delete(svm[k]);
  }
}

/* The support lists' copy of their first rows (support_list.c): kernel
 * Pegasos, bias-free kernel SDCA (whose coefficients may return to 0: the
 * copy is dropped) and the Perceptron, with row copies and without, on 1
 * and 2 threads, over three train calls (each starts without the copy):
 * the same runs bit for bit, and the lists with row copies did copy rows
 * (more than one block of support vectors). */
void test_kernel_row_copy_support_lists_same_iterates(void)
{
  static CsrRows m;
  static double y[RN];
  const SsKernelSolver solvers[3] = {SS_KSOLVER_PEGASOS, SS_KSOLVER_SDCA, SS_KSOLVER_PERCEPTRON};
  for (int unit = 0; unit < 2; ++unit) {
    SsData data;
    REQUIRE(labelled_problem(&m, unit, 31, y, &data) == SS_OK);
    SsKernel kernel;
    REQUIRE(ss_kernel_init(&kernel, SS_KERNEL_RBF, 0.5, 0, 1) == SS_OK);
    for (int s = 0; s < 3; ++s) {
      SsKernelSvm *svm[3];
      for (int k = 0; k < 3; ++k) {
        svm[k] = ss_kernel_svm_new(solvers[s], &kernel, &data, y, 1.0 / (100.0 * RN));
        REQUIRE(svm[k]);
        CHECK_EQ_INT(ss_kernel_svm_set_row_copy(svm[k], k != 0), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_num_threads(svm[k], k == 2 ? 2 : 1), SS_OK);
        svm[k]->threads.min_length = 16;
        CHECK_EQ_INT(ss_kernel_svm_set_sdca_finish(svm[k], SS_KERNEL_SDCA_FINISH_OFF), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_max_num_iterations(svm[k], RN), SS_OK);
        CHECK_EQ_INT(ss_kernel_svm_set_seed(svm[k], 5), SS_OK);
        for (int call = 0; call < 3; ++call) CHECK_EQ_INT(ss_kernel_svm_train(svm[k]), SS_OK);
      }
      const SsSupportList *copying = svm[1]->state, *plain = svm[0]->state;
      REQUIRE(copying && plain);
      CHECK(copying->m > SS_KERNEL_ROW_BLOCK && copying->copied >= SS_KERNEL_ROW_BLOCK);
      CHECK(plain->copied == 0);
      CHECK(tu_same_kernel_run(svm[0], svm[1], RN));
      CHECK(tu_same_kernel_run(svm[0], svm[2], RN));
      CHECK(memcmp(ss_kernel_svm_get_dual_variables(svm[0]), ss_kernel_svm_get_dual_variables(svm[1]),
                   RN * sizeof(double)) == 0);
      for (int k = 0; k < 3; ++k) ss_kernel_svm_delete(svm[k]);
    }
  }
}
