/* test_data.c -- the SsData descriptor: validation of ss_data_init_dense and
 * ss_data_init_csr, the row kernels for dense/CSR x float32/float64, status
 * strings and the version. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/stochsvm.h"

/* A descriptor filled with a byte pattern, to check "written only on success". */
static void poison(SsData *d) { memset(d, 0xA5, sizeof *d); }
static int is_poisoned(const SsData *d) {
  SsData p;
  poison(&p);
  return memcmp(&p, d, sizeof p) == 0;
}

void test_data_dense_valid(void) {
  double xd[6] = {1, 2, 3, 4, 5, 6};
  float xf[6] = {1, 2, 3, 4, 5, 6};
  SsData d;
  poison(&d);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xd, 2, 3, 3), SS_OK);
  CHECK_EQ_INT(d.layout, SS_LAYOUT_DENSE);
  CHECK_EQ_INT(d.dtype, SS_DTYPE_FLOAT64);
  CHECK_EQ_INT(d.num_data, 2);
  CHECK_EQ_INT(d.dimension, 3);
  CHECK_EQ_INT(d.row_stride, 3);
  CHECK(d.values == (const void *)xd);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT32, xf, 3, 2, 2), SS_OK);
  CHECK_EQ_INT(d.dtype, SS_DTYPE_FLOAT32);
  CHECK_EQ_INT(d.num_data, 3);
  CHECK(d.values == (const void *)xf);
  /* row_stride > d: a 2 x 2 view of a 2 x 3 array. */
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xd, 2, 2, 3), SS_OK);
  CHECK_EQ_INT(d.row_stride, 3);
  /* 1 x 1 is the smallest matrix. */
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xd, 1, 1, 1), SS_OK);
}

void test_data_dense_padding_not_read(void) {
  /* The elements between d and row_stride are not part of the matrix: NaN
   * there is fine, and the last row ends at d (exact-size heap buffer, so
   * ASan sees any read past it). */
  const int64_t n = 3, d = 2, stride = 5;
  size_t count = (size_t)((n - 1) * stride + d);
  double *x = malloc(count * sizeof *x);
  REQUIRE(x != NULL);
  for (size_t k = 0; k < count; ++k) x[k] = NAN;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) x[i * stride + j] = (double)(i + j);
  SsData data;
  CHECK_EQ_INT(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, x, n, d, stride), SS_OK);
  double w[2] = {1.0, 10.0};
  CHECK_CLOSE(ss_data_inner_product(&data, 2, w), 2.0 + 30.0, 0.0);
  free(x);
}

void test_data_dense_rejects(void) {
  double x[4] = {1, 2, 3, 4};
  SsData d;
  poison(&d);
  CHECK_EQ_INT(ss_data_init_dense(NULL, SS_DTYPE_FLOAT64, x, 2, 2, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, NULL, 2, 2, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 0, 2, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, -1, 2, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 2, 0, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 2, -3, 2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 2, 2, 1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 2, 2, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, x, 2, 2, -2), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_dense(&d, (SsDType)7, x, 2, 2, 2), SS_ERR_BAD_ARG);
  CHECK(is_poisoned(&d));

  double xn[4] = {1, 2, 3, NAN};
  double xi[4] = {1, INFINITY, 3, 4};
  double xmi[4] = {-INFINITY, 2, 3, 4};
  float fn[4] = {1, 2, NAN, 4};
  float fi[4] = {1, 2, 3, -INFINITY};
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xn, 2, 2, 2), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xi, 2, 2, 2), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT64, xmi, 2, 2, 2), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT32, fn, 2, 2, 2), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_dense(&d, SS_DTYPE_FLOAT32, fi, 2, 2, 2), SS_ERR_BAD_DATA);
  CHECK(is_poisoned(&d));
}

void test_data_csr_valid(void) {
  /* 3 x 4 with an empty middle row. */
  double v[3] = {1, 2, 3};
  int64_t indptr[4] = {0, 2, 2, 3};
  int32_t idx[3] = {0, 3, 1};
  SsData d;
  poison(&d);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, idx, 3, 4), SS_OK);
  CHECK_EQ_INT(d.layout, SS_LAYOUT_CSR);
  CHECK_EQ_INT(d.dtype, SS_DTYPE_FLOAT64);
  CHECK_EQ_INT(d.num_data, 3);
  CHECK_EQ_INT(d.dimension, 4);
  CHECK(d.values == (const void *)v);
  CHECK(d.indptr == indptr);
  CHECK(d.indices == idx);
  float vf[3] = {1, 2, 3};
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT32, vf, indptr, idx, 3, 4), SS_OK);
  CHECK_EQ_INT(d.dtype, SS_DTYPE_FLOAT32);
  /* An all-zero matrix: no stored values, values may be NULL. */
  int64_t zptr[3] = {0, 0, 0};
  int32_t zidx[1] = {0};
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, NULL, zptr, zidx, 2, 5), SS_OK);
  CHECK_EQ_INT(d.num_data, 2);
}

void test_data_csr_rejects(void) {
  double v[3] = {1, 2, 3};
  int64_t indptr[4] = {0, 2, 2, 3};
  int32_t idx[3] = {0, 3, 1};
  SsData d;
  poison(&d);
  /* Bad arguments. */
  CHECK_EQ_INT(ss_data_init_csr(NULL, SS_DTYPE_FLOAT64, v, indptr, idx, 3, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, NULL, indptr, idx, 3, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, NULL, idx, 3, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, NULL, 3, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, idx, 0, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, idx, -2, 4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, idx, 3, 0), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, idx, 3, -1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_data_init_csr(&d, (SsDType)3, v, indptr, idx, 3, 4), SS_ERR_BAD_ARG);
  CHECK(is_poisoned(&d));

  /* Malformed indptr. */
  int64_t p_start[4] = {1, 2, 2, 3};
  int64_t p_decr[4] = {0, 2, 1, 2}; /* row 2 = entry 1 alone: only indptr is wrong */
  int64_t p_neg[4] = {0, -1, 2, 3};
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, p_start, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, p_decr, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, p_neg, idx, 3, 4), SS_ERR_BAD_DATA);

  /* Bad indices. */
  int32_t i_range[3] = {0, 4, 1};
  int32_t i_neg[3] = {-1, 3, 1};
  int32_t i_unsorted[3] = {3, 0, 1};
  int32_t i_dup[3] = {2, 2, 1};
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, i_range, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, i_neg, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, i_unsorted, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v, indptr, i_dup, 3, 4), SS_ERR_BAD_DATA);
  /* Sorting is per row: a smaller index starting a new row is fine. */
  int32_t i_rows[3] = {2, 3, 0};
  SsData ok;
  CHECK_EQ_INT(ss_data_init_csr(&ok, SS_DTYPE_FLOAT64, v, indptr, i_rows, 3, 4), SS_OK);

  /* Non-finite values, both dtypes. */
  double v_nan[3] = {1, NAN, 3};
  double v_inf[3] = {1, 2, -INFINITY};
  float f_nan[3] = {NAN, 2, 3};
  float f_inf[3] = {1, INFINITY, 3};
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v_nan, indptr, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT64, v_inf, indptr, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT32, f_nan, indptr, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK_EQ_INT(ss_data_init_csr(&d, SS_DTYPE_FLOAT32, f_inf, indptr, idx, 3, 4), SS_ERR_BAD_DATA);
  CHECK(is_poisoned(&d));
}

/* The same 5 x 6 matrix in four storages; row 2 is empty; values are exact
 * in float32. Dense storage uses row_stride 8 (> d). */
enum { KN = 5, KD = 6, KSTRIDE = 8 };
static const double kdense[KN][KD] = {
    {1.5, 0, -2.25, 0, 0, 4},
    {0, 0.125, 0, 0, 3, 0},
    {0, 0, 0, 0, 0, 0},
    {-7, 0, 0, 0.5, 0, -1},
    {2, 3, 4, 5, 6, 7},
};

typedef struct Storages {
  SsData views[4];
  const char *names[4];
  double dense64[KN * KSTRIDE];
  float dense32[KN * KSTRIDE];
  double csr64[KN * KD];
  float csr32[KN * KD];
  int64_t indptr[KN + 1];
  int32_t indices[KN * KD];
} Storages;

static int make_storages(Storages *s) {
  int64_t nnz = 0;
  s->indptr[0] = 0;
  for (int i = 0; i < KN; ++i) {
    for (int j = 0; j < KSTRIDE; ++j) {
      double v = j < KD ? kdense[i][j] : 99.0; /* padding must be ignored */
      s->dense64[i * KSTRIDE + j] = v;
      s->dense32[i * KSTRIDE + j] = (float)v;
    }
    for (int j = 0; j < KD; ++j) {
      if (kdense[i][j] != 0) {
        s->csr64[nnz] = kdense[i][j];
        s->csr32[nnz] = (float)kdense[i][j];
        s->indices[nnz] = j;
        ++nnz;
      }
    }
    s->indptr[i + 1] = nnz;
  }
  s->names[0] = "dense64";
  s->names[1] = "dense32";
  s->names[2] = "csr64";
  s->names[3] = "csr32";
  int bad = 0;
  bad |= ss_data_init_dense(&s->views[0], SS_DTYPE_FLOAT64, s->dense64, KN, KD, KSTRIDE) != SS_OK;
  bad |= ss_data_init_dense(&s->views[1], SS_DTYPE_FLOAT32, s->dense32, KN, KD, KSTRIDE) != SS_OK;
  bad |= ss_data_init_csr(&s->views[2], SS_DTYPE_FLOAT64, s->csr64, s->indptr, s->indices, KN, KD) != SS_OK;
  bad |= ss_data_init_csr(&s->views[3], SS_DTYPE_FLOAT32, s->csr32, s->indptr, s->indices, KN, KD) != SS_OK;
  return !bad;
}

void test_data_row_kernels(void) {
  Storages s;
  REQUIRE(make_storages(&s));
  const double w[KD] = {0.3, -1.7, 2.9, 1e-3, -0.61, 5.5};
  for (int k = 0; k < 4; ++k) {
    double tol = (k % 2 == 1) ? 1e-6 : 1e-12;
    for (int i = 0; i < KN; ++i) {
      double ref = 0;
      for (int j = 0; j < KD; ++j) ref += w[j] * kdense[i][j];
      double got = ss_data_inner_product(&s.views[k], i, w);
      if (fabs(got - ref) > tol) printf("  %s row %d\n", s.names[k], i);
      CHECK_CLOSE(got, ref, tol);
      /* accumulate: w' = w + m x_i, on a copy. */
      double acc[KD];
      memcpy(acc, w, sizeof acc);
      const double m = -0.37;
      ss_data_accumulate(&s.views[k], i, acc, m);
      for (int j = 0; j < KD; ++j) CHECK_CLOSE(acc[j], w[j] + m * kdense[i][j], tol);
    }
  }
  /* The empty CSR row gives exactly 0 and leaves w unchanged. */
  for (int k = 2; k < 4; ++k) {
    CHECK(ss_data_inner_product(&s.views[k], 2, w) == 0.0);
    double acc[KD];
    memcpy(acc, w, sizeof acc);
    ss_data_accumulate(&s.views[k], 2, acc, 3.0);
    CHECK(memcmp(acc, w, sizeof acc) == 0);
  }
  /* The padding (99) of the dense storages is never touched by accumulate. */
  double big[KSTRIDE];
  for (int j = 0; j < KSTRIDE; ++j) big[j] = 1.0;
  ss_data_accumulate(&s.views[0], 4, big, 1.0);
  CHECK_CLOSE(big[KD], 1.0, 0.0);
  CHECK_CLOSE(big[KD + 1], 1.0, 0.0);
}

void test_data_row_kernels_agree(void) {
  /* Pairwise agreement of the four storages on a random-looking w. */
  Storages s;
  REQUIRE(make_storages(&s));
  double w[KD];
  for (int j = 0; j < KD; ++j) w[j] = sin(1.0 + 3.0 * j) * 10.0;
  for (int i = 0; i < KN; ++i) {
    double d64 = ss_data_inner_product(&s.views[0], i, w);
    double d32 = ss_data_inner_product(&s.views[1], i, w);
    double c64 = ss_data_inner_product(&s.views[2], i, w);
    double c32 = ss_data_inner_product(&s.views[3], i, w);
    CHECK_CLOSE(d64, c64, 1e-12);
    CHECK_CLOSE(d32, c32, 1e-6);
    CHECK_CLOSE(d64, d32, 1e-6);
    CHECK_CLOSE(c64, c32, 1e-6);
  }
}

void test_status_strings(void) {
  const SsStatus codes[] = {SS_OK, SS_ERR_ALLOC, SS_ERR_BAD_ARG, SS_ERR_BAD_DATA,
                            SS_ERR_BAD_STATE, SS_ERR_NUMERIC, SS_ERR_INTERRUPTED,
                            SS_ERR_IO, SS_ERR_FORMAT, SS_ERR_VERSION, (SsStatus)42};
  const int m = (int)(sizeof codes / sizeof codes[0]);
  const char *str[sizeof codes / sizeof codes[0]];
  for (int k = 0; k < m; ++k) {
    str[k] = ss_status_string(codes[k]);
    CHECK(str[k] != NULL);
    if (str[k]) CHECK(strlen(str[k]) > 0);
  }
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b)
      if (str[a] && str[b]) CHECK(strcmp(str[a], str[b]) != 0);
  /* Another unknown value (negative) is also handled. */
  const char *neg = ss_status_string((SsStatus)-1);
  CHECK(neg != NULL);
}

void test_version(void) {
  const char *v = ss_version();
  REQUIRE(v != NULL);
  CHECK(strcmp(v, SS_VERSION_STRING) == 0);
}
