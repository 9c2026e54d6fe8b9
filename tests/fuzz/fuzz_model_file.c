/* fuzz_model_file.c -- the model-file reader (model_file.h) on arbitrary
 * bytes. Checked promises: ss_model_decode returns a documented status and
 * a zeroed model on failure; a decoded model is valid (ss_model_validate),
 * can score a tiny CSR data set of its dimension (ss_model_decision_function,
 * ss_model_predict return SS_OK or SS_ERR_ALLOC and read nothing out of
 * bounds), and encoding it again gives bytes that decode to the same
 * encoding (encode . decode is idempotent). The seed corpus holds valid
 * encodings of linear, homogeneous-kernel-map and kernel models
 * (gen_model_file_corpus.c), from which the fuzzer mutates. Each input is
 * decoded twice: as is (the checksums catch most mutations), and with every
 * section's CRC-32 recomputed, so that mutated sizes, counts, tags and
 * numbers reach the parsing and consistency checks behind the checksum. */
#include "fuzz_common.h"
#include "stochsvm/model_file.h"

static int is_zeroed(const SsModel *m)
{
  static const SsModel zero; /* all fields 0 / NULL */
  return m->labels == zero.labels && m->weights == zero.weights && m->biases == zero.biases &&
         m->sv_indptr == zero.sv_indptr && m->sv_indices == zero.sv_indices &&
         m->sv_values == zero.sv_values && m->coefficients == zero.coefficients &&
         m->metadata == zero.metadata && m->owns_memory == 0;
}

/* Score a few rows of a CSR data set of the model's dimension d (CSR so that
 * a huge d costs nothing): a couple of non-zeros per row at columns 0,
 * d - 1 and one in between. */
static void score_tiny(const SsModel *m)
{
  enum { N = 3 };
  const int64_t d = m->dimension;
  int64_t indptr[N + 1] = {0, 0, 0, 0};
  int32_t indices[2 * N];
  double values[2 * N] = {1.0, -0.5, 2.0, 0.25, -1.0, 3.0};
  int64_t nnz = 0;
  if (d > INT32_MAX) return; /* columns are int32 */
  for (int i = 0; i < N; ++i) {
    int64_t a = i == 0 ? 0 : i == 1 ? d / 2 : d - 1, b = d - 1;
    indices[nnz++] = (int32_t)a;
    if (b > a) indices[nnz++] = (int32_t)b;
    indptr[i + 1] = nnz;
  }
  SsData data;
  FZ_ASSERT(ss_data_init_csr(&data, SS_DTYPE_FLOAT64, values, indptr, indices, N, d) == SS_OK);
  double *scores = malloc((size_t)(N * m->num_outputs) * sizeof(double));
  double predictions[N];
  if (!scores) return;
  fz_check_scores(ss_model_decision_function(m, &data, scores), scores, N * m->num_outputs);
  SsStatus s = ss_model_predict(m, &data, predictions);
  FZ_ASSERT(s == SS_OK || s == SS_ERR_ALLOC || s == SS_ERR_NUMERIC);
  if (s == SS_OK && m->task != SS_TASK_REGRESSION) /* a label is one of the classes */
    for (int i = 0; i < N; ++i) {
      int found = 0;
      for (int64_t c = 0; c < m->num_classes; ++c) found |= predictions[i] == m->labels[c];
      FZ_ASSERT(found);
    }
  free(scores);
}

static uint8_t *encode(const SsModel *m, size_t *size)
{
  FZ_ASSERT(ss_model_encoded_size(m, size) == SS_OK);
  uint8_t *bytes = malloc(*size);
  if (!bytes) return NULL;
  FZ_ASSERT(ss_model_encode(m, bytes, *size) == SS_OK);
  return bytes;
}

/* CRC-32 (IEEE 802.3, reflected), as the format specifies (docs/model_file.rst). */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

/* Walk the sections after the 16-byte header (tag, u64 length, payload,
 * CRC) as far as their lengths fit and rewrite each CRC. */
static void fix_checksums(uint8_t *b, size_t size)
{
  size_t at = 16;
  while (at + 12 <= size) {
    uint64_t length = 0;
    for (int k = 0; k < 8; ++k) length |= (uint64_t)b[at + 4 + k] << (8 * k);
    if (length > size - at - 12 || size - at - 12 - length < 4) return;
    uint32_t crc = crc32_of(b + at, (size_t)length + 12);
    for (int k = 0; k < 4; ++k) b[at + 12 + length + k] = (uint8_t)(crc >> (8 * k));
    at += 12 + (size_t)length + 4;
  }
}

static void check_one(const uint8_t *bytes, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
  check_one(bytes, size);
  uint8_t *fixed = malloc(size ? size : 1);
  if (!fixed) return 0;
  memcpy(fixed, bytes, size);
  fix_checksums(fixed, size);
  if (size == 0 || memcmp(fixed, bytes, size) != 0) check_one(fixed, size);
  free(fixed);
  return 0;
}

static void check_one(const uint8_t *bytes, size_t size)
{
  SsModel m;
  char message[256];
  memset(&m, 0x5a, sizeof m); /* the decoder must not rely on a zeroed model */
  message[0] = 'x';
  SsStatus s = ss_model_decode(&m, size ? bytes : NULL, size, message, sizeof message);
  FZ_ASSERT(s == SS_OK || s == SS_ERR_FORMAT || s == SS_ERR_VERSION || s == SS_ERR_ALLOC);
  FZ_ASSERT(memchr(message, '\0', sizeof message) != NULL);
  if (s != SS_OK) {
    FZ_ASSERT(is_zeroed(&m));
    FZ_ASSERT(message[0] != '\0' && message[0] != 'x'); /* a reason was written */
    return;
  }
  FZ_ASSERT(m.owns_memory == 1);
  FZ_ASSERT(ss_model_validate(&m, message, sizeof message) == SS_OK);
  score_tiny(&m);

  size_t size1 = 0, size2 = 0;
  uint8_t *once = encode(&m, &size1);
  SsModel again;
  if (once) {
    s = ss_model_decode(&again, once, size1, message, sizeof message);
    FZ_ASSERT(s == SS_OK || s == SS_ERR_ALLOC);
    if (s == SS_OK) {
      uint8_t *twice = encode(&again, &size2);
      if (twice) FZ_ASSERT(size1 == size2 && memcmp(once, twice, size1) == 0);
      free(twice);
      ss_model_free(&again);
    }
  }
  free(once);
  ss_model_free(&m);
  FZ_ASSERT(is_zeroed(&m));
}
