/* model_file.c -- the model file format (version 1, model_file.h and
 * docs/model_file.rst): encoding, decoding with every size and checksum
 * checked, and atomic saving.
 *
 * Layout. Integers are little-endian, doubles IEEE 754 binary64 stored as
 * their little-endian 64-bit pattern, whatever the host's byte order:
 *
 *     0x89 'S' 'S' 'V' 'M' '\r' '\n' 0x1A | u32 version | u32 section count
 *     section: tag[4] | u64 length | payload[length] | u32 CRC-32(tag, length, payload)
 *
 * Payloads (d input dimension, k outputs, C classes, D weight dimension,
 * m support vectors, z their nonzeros):
 *
 *     HEAD  u32 kind, u32 task, i64 d, i64 k, i64 C, i32 loss, i32 0,
 *           f64 lambda, f64 bias multiplier                         (56 bytes)
 *     LABL  C x f64 labels                                           (C > 0)
 *     HKMP  i32 kernel, i32 window, i32 order, i32 0, f64 gamma, f64 period
 *     LINR  k x D f64 weights (row-major), k x f64 biases
 *     KERN  i32 kernel, i32 degree, f64 gamma, f64 coef0, i64 m, i64 z,
 *           (m+1) x i64 indptr, z x i32 indices, z x f64 values,
 *           k x m f64 coefficients (row-major), k x f64 biases
 *     META  UTF-8 text, no terminator
 *     SCAL  u32 method, u32 0, i64 d, d x f64 offsets, d x f64 scales
 *
 * Writers emit HEAD first, then LABL, HKMP, LINR or KERN, META, SCAL (last:
 * files without it are the version-1 files of before the section). Readers
 * require HEAD first and at most one of each, skip unknown sections whose
 * tag starts with a lower-case letter, and refuse unknown upper-case ones.
 * The magic's first byte (non-ASCII) and its CR LF / Ctrl-Z catch a file
 * mangled by a text-mode transfer, as PNG's signature does.
 */
#if !defined(_WIN32) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath (XSI), for saving through a symbolic link */
#endif
#include "stochsvm/model_file.h"

#include "../common/message.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

static const unsigned char MAGIC[8] = {0x89, 'S', 'S', 'V', 'M', '\r', '\n', 0x1A};

enum { HEADER_BYTES = 16, SECTION_OVERHEAD = 16, HEAD_BYTES = 56, HKMP_BYTES = 32, KERN_FIXED = 40,
       SCAL_FIXED = 16 };

_Static_assert(sizeof(double) == 8, "doubles must be IEEE 754 binary64");

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zlib's crc32(). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int b = 0; b < 8; ++b) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

/* ------------------------------------------------------------------------ */
/*                                  Writing                                 */
/* ------------------------------------------------------------------------ */

typedef struct Writer {
  unsigned char *p; /* NULL: only count */
  size_t pos;
} Writer;

static void put_bytes(Writer *w, const void *src, size_t n)
{
  if (w->p && n) memcpy(w->p + w->pos, src, n);
  w->pos += n;
}

static void put_u32(Writer *w, uint32_t v)
{
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  put_bytes(w, b, 4);
}

static void put_u64(Writer *w, uint64_t v)
{
  put_u32(w, (uint32_t)v);
  put_u32(w, (uint32_t)(v >> 32));
}

static void put_f64(Writer *w, double x)
{
  uint64_t v;
  memcpy(&v, &x, 8);
  put_u64(w, v);
}

static void put_f64s(Writer *w, const double *x, int64_t n)
{
  for (int64_t i = 0; i < n; ++i) put_f64(w, x[i]);
}

/* Section framing: begin writes the tag and a length placeholder, end
 * patches the length and appends the CRC. */
static size_t begin_section(Writer *w, const char tag[4])
{
  size_t start = w->pos;
  put_bytes(w, tag, 4);
  put_u64(w, 0);
  return start;
}

static void end_section(Writer *w, size_t start)
{
  uint64_t length = w->pos - start - 12;
  if (w->p) {
    Writer patch = {w->p, start + 4};
    put_u64(&patch, length);
    put_u32(w, crc32_of(w->p + start, w->pos - start));
  } else {
    w->pos += 4;
  }
}

static int count_sections(const SsModel *m)
{
  return 2 + (m->num_classes > 0) + (m->kind == SS_MODEL_LINEAR && m->has_homkermap) +
         (m->metadata != NULL) + (m->scaling != SS_MODEL_SCALING_NONE);
}

/* Encode a validated model (or count its bytes when w->p is NULL). */
static void write_model(Writer *w, const SsModel *m)
{
  int64_t k = m->num_outputs;
  put_bytes(w, MAGIC, 8);
  put_u32(w, SS_MODEL_FILE_VERSION);
  put_u32(w, (uint32_t)count_sections(m));

  size_t s = begin_section(w, "HEAD");
  put_u32(w, (uint32_t)m->kind);
  put_u32(w, (uint32_t)m->task);
  put_u64(w, (uint64_t)m->dimension);
  put_u64(w, (uint64_t)k);
  put_u64(w, (uint64_t)m->num_classes);
  put_u32(w, (uint32_t)m->loss);
  put_u32(w, 0);
  put_f64(w, m->lambda);
  put_f64(w, m->bias_multiplier);
  end_section(w, s);

  if (m->num_classes > 0) {
    s = begin_section(w, "LABL");
    put_f64s(w, m->labels, m->num_classes);
    end_section(w, s);
  }
  if (m->kind == SS_MODEL_LINEAR) {
    if (m->has_homkermap) {
      s = begin_section(w, "HKMP");
      put_u32(w, (uint32_t)m->homkermap_kernel);
      put_u32(w, (uint32_t)m->homkermap_window);
      put_u32(w, (uint32_t)m->homkermap_order);
      put_u32(w, 0);
      put_f64(w, m->homkermap_gamma);
      put_f64(w, m->homkermap_period);
      end_section(w, s);
    }
    s = begin_section(w, "LINR");
    put_f64s(w, m->weights, k * ss_model_weight_dimension(m));
    put_f64s(w, m->biases, k);
    end_section(w, s);
  } else {
    int64_t sv = m->num_support_vectors, nnz = m->sv_indptr[sv];
    s = begin_section(w, "KERN");
    put_u32(w, (uint32_t)m->kernel);
    put_u32(w, (uint32_t)m->degree);
    put_f64(w, m->gamma);
    put_f64(w, m->coef0);
    put_u64(w, (uint64_t)sv);
    put_u64(w, (uint64_t)nnz);
    for (int64_t j = 0; j <= sv; ++j) put_u64(w, (uint64_t)m->sv_indptr[j]);
    for (int64_t t = 0; t < nnz; ++t) put_u32(w, (uint32_t)m->sv_indices[t]);
    put_f64s(w, m->sv_values, nnz);
    put_f64s(w, m->coefficients, k * sv);
    put_f64s(w, m->biases, k);
    end_section(w, s);
  }
  if (m->metadata) {
    s = begin_section(w, "META");
    put_bytes(w, m->metadata, strlen(m->metadata));
    end_section(w, s);
  }
  if (m->scaling != SS_MODEL_SCALING_NONE) {
    s = begin_section(w, "SCAL");
    put_u32(w, (uint32_t)m->scaling);
    put_u32(w, 0);
    put_u64(w, (uint64_t)m->dimension);
    put_f64s(w, m->scaling_offset, m->dimension);
    put_f64s(w, m->scaling_scale, m->dimension);
    end_section(w, s);
  }
}

SsStatus ss_model_encoded_size(const SsModel *model, size_t *size)
{
  if (!size || ss_model_validate(model, NULL, 0) != SS_OK) return SS_ERR_BAD_ARG;
  Writer w = {NULL, 0};
  write_model(&w, model);
  *size = w.pos;
  return SS_OK;
}

SsStatus ss_model_encode(const SsModel *model, void *buffer, size_t size)
{
  size_t need;
  if (!buffer || ss_model_encoded_size(model, &need) != SS_OK || need != size) return SS_ERR_BAD_ARG;
  Writer w = {buffer, 0};
  write_model(&w, model);
  return SS_OK;
}

/* ------------------------------------------------------------------------ */
/*                                  Reading                                 */
/* ------------------------------------------------------------------------ */

typedef struct Reader {
  const unsigned char *p;
  size_t left;
} Reader;

static uint32_t get_u32(Reader *r)
{
  const unsigned char *b = r->p;
  r->p += 4;
  r->left -= 4;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get_u64(Reader *r)
{
  uint64_t lo = get_u32(r);
  return lo | (uint64_t)get_u32(r) << 32;
}

static int64_t get_i64(Reader *r)
{
  uint64_t v = get_u64(r);
  int64_t x;
  memcpy(&x, &v, 8);
  return x;
}

static int32_t get_i32(Reader *r)
{
  uint32_t v = get_u32(r);
  int32_t x;
  memcpy(&x, &v, 4);
  return x;
}

static double get_f64(Reader *r)
{
  uint64_t v = get_u64(r);
  double x;
  memcpy(&x, &v, 8);
  return x;
}

/* Allocate n elements of the given size (at least one byte) into *out and
 * fill them by the reader function; the reader must hold enough bytes. */
static void *alloc_array(int64_t n, size_t size)
{
  return malloc(n > 0 ? (size_t)n * size : 1);
}

static SsStatus read_f64s(Reader *r, int64_t n, double **out)
{
  *out = alloc_array(n, sizeof **out);
  if (!*out) return SS_ERR_ALLOC;
  for (int64_t i = 0; i < n; ++i) (*out)[i] = get_f64(r);
  return SS_OK;
}

/* a * b * unit <= limit, without overflow (all non-negative). */
static bool fits(uint64_t a, uint64_t b, uint64_t unit, uint64_t limit)
{
  if (a == 0 || b == 0) return true;
  if (a > limit / unit) return false;
  return b <= limit / (a * unit);
}

enum { SEC_HEAD, SEC_LABL, SEC_HKMP, SEC_LINR, SEC_KERN, SEC_META, SEC_SCAL, NUM_KNOWN };
static const char *const KNOWN[NUM_KNOWN] = {"HEAD", "LABL", "HKMP", "LINR", "KERN", "META", "SCAL"};

typedef struct Section {
  const unsigned char *payload;
  uint64_t length;
  bool present;
} Section;

static SsStatus read_head(SsModel *m, const Section *sec, char *msg, size_t size)
{
  if (sec->length != HEAD_BYTES)
    return ss_message(SS_ERR_FORMAT, msg, size, "section HEAD has %llu bytes, expected %d",
                (unsigned long long)sec->length, HEAD_BYTES);
  Reader r = {sec->payload, HEAD_BYTES};
  m->kind = (SsModelKind)get_u32(&r);
  m->task = (SsModelTask)get_u32(&r);
  m->dimension = get_i64(&r);
  m->num_outputs = get_i64(&r);
  m->num_classes = get_i64(&r);
  m->loss = get_i32(&r);
  (void)get_u32(&r);
  m->lambda = get_f64(&r);
  m->bias_multiplier = get_f64(&r);
  if (m->kind != SS_MODEL_LINEAR && m->kind != SS_MODEL_KERNEL)
    return ss_message(SS_ERR_FORMAT, msg, size, "unknown model kind %d", (int)m->kind);
  if (m->dimension < 1 || m->dimension > INT32_MAX || m->num_outputs < 1 ||
      m->num_outputs > INT32_MAX || m->num_classes < 0 || m->num_classes > INT32_MAX)
    return ss_message(SS_ERR_FORMAT, msg, size, "sizes out of range in section HEAD");
  return SS_OK;
}

static SsStatus read_kernel(SsModel *m, const Section *sec, char *msg, size_t size)
{
  uint64_t k = (uint64_t)m->num_outputs;
  if (sec->length < KERN_FIXED)
    return ss_message(SS_ERR_FORMAT, msg, size, "section KERN is too short (%llu bytes)",
                (unsigned long long)sec->length);
  Reader r = {sec->payload, sec->length};
  m->kernel = (SsModelKernel)get_u32(&r);
  m->degree = get_i32(&r);
  m->gamma = get_f64(&r);
  m->coef0 = get_f64(&r);
  int64_t sv = get_i64(&r), nnz = get_i64(&r);
  uint64_t rest = sec->length - KERN_FIXED;
  /* (sv + 1) * 8 + nnz * 12 + k * sv * 8 + k * 8 must equal rest exactly */
  if (sv < 0 || nnz < 0 || !fits((uint64_t)sv + 1, 1, 8, rest) || !fits((uint64_t)nnz, 1, 12, rest) ||
      !fits(k, (uint64_t)sv, 8, rest) ||
      ((uint64_t)sv + 1) * 8 + (uint64_t)nnz * 12 + k * (uint64_t)sv * 8 + k * 8 != rest)
    return ss_message(SS_ERR_FORMAT, msg, size,
                "section KERN has %llu bytes, which does not match %lld support vectors "
                "with %lld nonzeros and %llu outputs",
                (unsigned long long)sec->length, (long long)sv, (long long)nnz,
                (unsigned long long)k);
  m->num_support_vectors = sv;
  m->sv_indptr = alloc_array(sv + 1, sizeof *m->sv_indptr);
  m->sv_indices = alloc_array(nnz, sizeof *m->sv_indices);
  if (!m->sv_indptr || !m->sv_indices) return SS_ERR_ALLOC;
  for (int64_t j = 0; j <= sv; ++j) m->sv_indptr[j] = get_i64(&r);
  for (int64_t t = 0; t < nnz; ++t) m->sv_indices[t] = get_i32(&r);
  if (m->sv_indptr[sv] != nnz)
    return ss_message(SS_ERR_FORMAT, msg, size, "KERN: the last row offset %lld differs from %lld nonzeros",
                (long long)m->sv_indptr[sv], (long long)nnz);
  SsStatus status = read_f64s(&r, nnz, &m->sv_values);
  if (status == SS_OK) status = read_f64s(&r, (int64_t)k * sv, &m->coefficients);
  if (status == SS_OK) status = read_f64s(&r, (int64_t)k, &m->biases);
  return status;
}

static SsStatus read_linear(SsModel *m, const Section *hkmp, const Section *linr, char *msg,
                            size_t size)
{
  if (hkmp->present) {
    if (hkmp->length != HKMP_BYTES)
      return ss_message(SS_ERR_FORMAT, msg, size, "section HKMP has %llu bytes, expected %d",
                  (unsigned long long)hkmp->length, HKMP_BYTES);
    Reader r = {hkmp->payload, HKMP_BYTES};
    m->has_homkermap = 1;
    m->homkermap_kernel = get_i32(&r);
    m->homkermap_window = get_i32(&r);
    m->homkermap_order = get_i32(&r);
    (void)get_u32(&r);
    m->homkermap_gamma = get_f64(&r);
    m->homkermap_period = get_f64(&r);
  }
  int64_t D = ss_model_weight_dimension(m);
  if (D < 1) return ss_message(SS_ERR_FORMAT, msg, size, "invalid homogeneous kernel map in section HKMP");
  uint64_t k = (uint64_t)m->num_outputs;
  if (!fits(k, (uint64_t)D + 1, 8, linr->length) || k * ((uint64_t)D + 1) * 8 != linr->length)
    return ss_message(SS_ERR_FORMAT, msg, size,
                "section LINR has %llu bytes, expected %llu outputs x (%lld weights + 1 bias)",
                (unsigned long long)linr->length, (unsigned long long)k, (long long)D);
  Reader r = {linr->payload, linr->length};
  SsStatus status = read_f64s(&r, (int64_t)k * D, &m->weights);
  if (status == SS_OK) status = read_f64s(&r, (int64_t)k, &m->biases);
  return status;
}

/* The feature scaling: the method, then d offsets and d scales for the
 * model's d (the values are checked by ss_model_validate). */
static SsStatus read_scaling(SsModel *m, const Section *sec, char *msg, size_t size)
{
  const uint64_t d = (uint64_t)m->dimension;
  if (sec->length != SCAL_FIXED + 16 * d)
    return ss_message(SS_ERR_FORMAT, msg, size,
                      "section SCAL has %llu bytes, expected %llu for %lld features",
                      (unsigned long long)sec->length, (unsigned long long)(SCAL_FIXED + 16 * d),
                      (long long)d);
  Reader r = {sec->payload, sec->length};
  uint32_t method = get_u32(&r);
  (void)get_u32(&r);
  int64_t columns = get_i64(&r);
  if (method < SS_MODEL_SCALING_MINMAX || method > SS_MODEL_SCALING_STANDARD || columns != m->dimension)
    return ss_message(SS_ERR_FORMAT, msg, size,
                      "section SCAL is inconsistent (method %lu, %lld features for a model of %lld)",
                      (unsigned long)method, (long long)columns, (long long)m->dimension);
  m->scaling = (SsModelScaling)method;
  SsStatus status = read_f64s(&r, m->dimension, &m->scaling_offset);
  if (status == SS_OK) status = read_f64s(&r, m->dimension, &m->scaling_scale);
  return status;
}

/* Split the buffer into sections, checking framing and checksums. */
static SsStatus read_sections(const unsigned char *p, size_t size, Section known[NUM_KNOWN],
                              char *msg, size_t msg_size)
{
  if (size < HEADER_BYTES || memcmp(p, MAGIC, 8) != 0) {
    if (size >= 8 && memcmp(p, MAGIC, 8) != 0)
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "not a stochsvm model file (wrong signature)");
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "truncated file (%zu bytes, shorter than the header)",
                size);
  }
  Reader r = {p + 8, size - 8};
  uint32_t version = get_u32(&r), count = get_u32(&r);
  if (version == 0)
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "invalid format version 0");
  if (version > SS_MODEL_FILE_VERSION)
    return ss_message(SS_ERR_VERSION, msg, msg_size,
                "format version %lu is newer than this library reads (up to %d)",
                (unsigned long)version, SS_MODEL_FILE_VERSION);
  for (uint32_t s = 0; s < count; ++s) {
    if (r.left < SECTION_OVERHEAD)
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "truncated file: section %lu of %lu is missing",
                  (unsigned long)s + 1, (unsigned long)count);
    const unsigned char *start = r.p;
    char tag[5] = {(char)start[0], (char)start[1], (char)start[2], (char)start[3], 0};
    r.p += 4;
    r.left -= 4;
    uint64_t length = get_u64(&r);
    if (length > r.left - 4)
      return ss_message(SS_ERR_FORMAT, msg, msg_size,
                  "truncated file: section %lu of %lu declares %llu bytes of payload, %zu remain",
                  (unsigned long)s + 1, (unsigned long)count, (unsigned long long)length, r.left - 4);
    const unsigned char *payload = r.p;
    r.p += length;
    r.left -= (size_t)length;
    uint32_t stored = get_u32(&r);
    int which = -1;
    for (int q = 0; q < NUM_KNOWN; ++q)
      if (memcmp(tag, KNOWN[q], 4) == 0) which = q;
    /* Named by its position and its tag. */
    if (crc32_of(start, (size_t)length + 12) != stored)
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "corrupted file: checksum mismatch in section %lu (%s)",
                  (unsigned long)s + 1, which >= 0 ? KNOWN[which] : "unknown tag");
    if (s == 0 && which != SEC_HEAD)
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "the first section is not HEAD");
    if (which < 0) {
      if (tag[0] >= 'A' && tag[0] <= 'Z')
        return ss_message(SS_ERR_VERSION, msg, msg_size, "unknown critical section (written by a newer library)");
      continue; /* optional: skip */
    }
    if (known[which].present)
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "section %s appears twice", KNOWN[which]);
    known[which] = (Section){payload, length, true};
  }
  if (r.left != 0)
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "%zu unexpected bytes after the last section", r.left);
  if (!known[SEC_HEAD].present) return ss_message(SS_ERR_FORMAT, msg, msg_size, "no HEAD section");
  return SS_OK;
}

static SsStatus decode(SsModel *m, const unsigned char *p, size_t size, char *msg, size_t msg_size)
{
  Section known[NUM_KNOWN] = {{0}};
  SsStatus status = read_sections(p, size, known, msg, msg_size);
  if (status != SS_OK) return status;
  status = read_head(m, &known[SEC_HEAD], msg, msg_size);
  if (status != SS_OK) return status;
  const Section *labl = &known[SEC_LABL];
  if ((m->num_classes > 0) != labl->present ||
      (labl->present && labl->length != (uint64_t)m->num_classes * 8))
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "section LABL does not hold the %lld labels of HEAD",
                (long long)m->num_classes);
  if (labl->present) {
    Reader r = {labl->payload, labl->length};
    if ((status = read_f64s(&r, m->num_classes, &m->labels)) != SS_OK) return status;
  }
  bool linear = m->kind == SS_MODEL_LINEAR;
  if (!known[linear ? SEC_LINR : SEC_KERN].present || known[linear ? SEC_KERN : SEC_LINR].present ||
      (!linear && known[SEC_HKMP].present))
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "the sections do not match a %s model",
                linear ? "linear" : "kernel");
  status = linear ? read_linear(m, &known[SEC_HKMP], &known[SEC_LINR], msg, msg_size)
                  : read_kernel(m, &known[SEC_KERN], msg, msg_size);
  if (status != SS_OK) return status;
  if (known[SEC_META].present) {
    const Section *meta = &known[SEC_META];
    if (memchr(meta->payload, 0, (size_t)meta->length))
      return ss_message(SS_ERR_FORMAT, msg, msg_size, "section META holds a NUL byte");
    if (!(m->metadata = malloc((size_t)meta->length + 1))) return SS_ERR_ALLOC;
    memcpy(m->metadata, meta->payload, (size_t)meta->length);
    m->metadata[meta->length] = '\0';
  }
  if (known[SEC_SCAL].present && (status = read_scaling(m, &known[SEC_SCAL], msg, msg_size)) != SS_OK)
    return status;
  char reason[200];
  if (ss_model_validate(m, reason, sizeof reason) != SS_OK)
    return ss_message(SS_ERR_FORMAT, msg, msg_size, "inconsistent model: %s", reason);
  return SS_OK;
}

SsStatus ss_model_decode(SsModel *model, const void *buffer, size_t size, char *message,
                         size_t message_size)
{
  if (message && message_size > 0) message[0] = '\0';
  if (!model || (!buffer && size > 0))
    return ss_message(SS_ERR_BAD_ARG, message, message_size, "NULL model or buffer");
  ss_model_init(model);
  model->owns_memory = 1;
  SsStatus status = decode(model, buffer, size, message, message_size);
  if (status == SS_ERR_ALLOC) ss_message(status, message, message_size, "out of memory");
  if (status != SS_OK) ss_model_free(model);
  return status;
}

/* ------------------------------------------------------------------------ */
/*                                   Files                                  */
/* ------------------------------------------------------------------------ */

/* Why a file operation failed, in words, for the common errno values (a
 * table of our own: strerror may share one buffer between threads); NULL
 * for the others. */
static const char *io_reason(int err)
{
  switch (err) {
  case ENOSPC: return "no space left on the device";
  case EACCES: return "permission denied";
  case ENOENT: return "no such file or folder";
  case EIO: return "input/output error";
  case EFBIG: return "file too large";
#ifdef EDQUOT
  case EDQUOT: return "disk quota exceeded";
#endif
#ifdef EROFS
  case EROFS: return "read-only file system";
#endif
#ifdef EPERM
  case EPERM: return "operation not permitted";
#endif
  default: return NULL;
  }
}

/* "%s: cannot <what>", with the reason (io_reason(err)) where there is one. */
static SsStatus io_failure(char *message, size_t message_size, const char *path, const char *what, int err)
{
  const char *reason = io_reason(err);
  if (reason) return ss_message(SS_ERR_IO, message, message_size, "%s: cannot %s (%s)", path, what, reason);
  return ss_message(SS_ERR_IO, message, message_size, "%s: cannot %s", path, what);
}

/* Read the whole of the regular file @p path into a new buffer: FIFOs,
 * devices and folders are refused before any read (opened without blocking,
 * so a FIFO with no writer cannot hang), and at most the size fstat reports is
 * read, so /dev/zero-like sources cannot exhaust memory. */
static SsStatus read_regular_file(const char *path, unsigned char **out, size_t *out_size,
                                  char *message, size_t message_size)
{
#if defined(_WIN32)
  FILE *f = fopen(path, "rb");
  if (!f) return io_failure(message, message_size, path, "open for reading", errno);
  long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return ss_message(SS_ERR_IO, message, message_size, "%s: not a regular file", path);
  }
  size_t size = (size_t)end;
  unsigned char *buffer = malloc(size + 1);
  size_t got = buffer ? fread(buffer, 1, size + 1, f) : 0;
  bool failed = buffer && ferror(f);
  fclose(f);
#else
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return io_failure(message, message_size, path, "open for reading", errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return ss_message(SS_ERR_IO, message, message_size,
                      "%s: not a regular file (a FIFO, device or folder is not read)", path);
  }
  if ((uintmax_t)st.st_size >= SIZE_MAX) {
    close(fd);
    return ss_message(SS_ERR_ALLOC, message, message_size, "%s: out of memory", path);
  }
  size_t size = (size_t)st.st_size, got = 0;
  unsigned char *buffer = malloc(size + 1);
  bool failed = false;
  while (buffer && got <= size) { /* one byte more than the size: a file that grew */
    ssize_t r = read(fd, buffer + got, size + 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      failed = r < 0;
      break;
    }
    got += (size_t)r;
  }
  close(fd);
#endif
  if (!buffer) return ss_message(SS_ERR_ALLOC, message, message_size, "%s: out of memory", path);
  if (failed || got > size) {
    free(buffer);
    return ss_message(SS_ERR_IO, message, message_size, failed ? "%s: read error"
                      : "%s: the file grew while it was read", path);
  }
  *out = buffer;
  *out_size = got;
  return SS_OK;
}

SsStatus ss_model_load(SsModel *model, const char *path, char *message, size_t message_size)
{
  if (message && message_size > 0) message[0] = '\0';
  if (!model || !path) return ss_message(SS_ERR_BAD_ARG, message, message_size, "NULL model or path");
  ss_model_init(model);
  unsigned char *buffer = NULL;
  size_t size = 0;
  SsStatus status = read_regular_file(path, &buffer, &size, message, message_size);
  if (status != SS_OK) return status;
  status = ss_model_decode(model, buffer, size, message, message_size);
  if (status != SS_OK && message && message_size > 0) {
    char reason[256];
    snprintf(reason, sizeof reason, "%s", message);
    snprintf(message, message_size, "%s: %s", path, reason);
  }
  free(buffer);
  return status;
}

/* Create a new file next to @p path for writing, named path.tmp-XXXXXXXX;
 * where that name is too long for the file system (a name of 243 to 255
 * bytes, valid itself, failed with ENAMETOOLONG), .ssvm-XXXXXXXX.tmp in the
 * same folder. The name goes to tmp (size path length + 32). NULL if
 * impossible. */
static FILE *create_temporary(const char *path, char *tmp, size_t tmp_size)
{
  const char *slash = strrchr(path, '/');
#if defined(_WIN32)
  const char *backslash = strrchr(path, '\\');
  if (backslash && (!slash || backslash > slash)) slash = backslash;
#endif
  const int folder = slash ? (int)(slash - path + 1) : 0; /* path's folder, with its separator */
  bool short_name = false;
  uint64_t salt = (uint64_t)(uintptr_t)tmp ^ (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
  for (int attempt = 0; attempt < 64; ++attempt) {
    salt = salt * 6364136223846793005ull + 1442695040888963407ull;
    if (short_name) {
      snprintf(tmp, tmp_size, "%.*s.ssvm-%08lx.tmp", folder, path, (unsigned long)(salt >> 32));
    } else {
      snprintf(tmp, tmp_size, "%s.tmp-%08lx", path, (unsigned long)(salt >> 32));
    }
#if defined(_WIN32)
    FILE *f = fopen(tmp, "wbx");
    if (f) return f;
    if (errno == ENAMETOOLONG && !short_name) short_name = true;
#else
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* the umask applies, as for fopen */
    if (fd >= 0) {
      FILE *f = fdopen(fd, "wb");
      if (f) return f;
      close(fd);
      remove(tmp);
      return NULL;
    }
    if (errno == ENAMETOOLONG && !short_name) {
      short_name = true;
      continue;
    }
    if (errno != EEXIST) return NULL;
#endif
  }
  return NULL;
}

/* What a save replaces. Symbolic links are followed: the file they point to
 * is replaced and the links stay. An existing target must be a regular file
 * (a FIFO, device or folder is refused); its mode, owner and group go to the
 * new file, and one with several hard links is rewritten in place so that
 * every link sees the new model. */
typedef struct SaveTarget {
  char *path;   /* the file to replace (the link's target), malloc'ed */
  bool exists;
  bool in_place; /* hard-linked: rewrite the file itself (not atomic) */
#if !defined(_WIN32)
  struct stat st;
#endif
} SaveTarget;

static SsStatus save_target(const char *path, SaveTarget *t, char *message, size_t message_size)
{
  *t = (SaveTarget){0};
#if !defined(_WIN32)
  struct stat lst;
  if (lstat(path, &lst) == 0) {
    t->path = S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
    if (S_ISLNK(lst.st_mode) && !t->path)
      return ss_message(SS_ERR_IO, message, message_size,
                        "%s: a symbolic link whose target cannot be resolved", path);
    if (!t->path && !(t->path = malloc(strlen(path) + 1)))
      return ss_message(SS_ERR_ALLOC, message, message_size, "out of memory");
    if (!S_ISLNK(lst.st_mode)) strcpy(t->path, path);
    if (stat(t->path, &t->st) != 0 || !S_ISREG(t->st.st_mode)) {
      free(t->path);
      t->path = NULL;
      return ss_message(SS_ERR_IO, message, message_size,
                        "%s: not a regular file (a model is only saved over a regular file)", path);
    }
    t->exists = true;
    t->in_place = t->st.st_nlink > 1;
    return SS_OK;
  }
#endif
  if (!(t->path = malloc(strlen(path) + 1)))
    return ss_message(SS_ERR_ALLOC, message, message_size, "out of memory");
  strcpy(t->path, path);
  return SS_OK;
}

/* The owner, group and mode of the replaced file on the new one (owner and
 * group as far as permitted; without them, no set-user/group-ID bit). */
static void keep_attributes(FILE *f, const SaveTarget *t)
{
#if !defined(_WIN32)
  if (!t->exists) return;
  int fd = fileno(f);
  mode_t mode = t->st.st_mode & 07777;
  if (fchown(fd, t->st.st_uid, t->st.st_gid) != 0) mode &= ~(mode_t)(S_ISUID | S_ISGID);
  (void)fchmod(fd, mode);
#else
  (void)f;
  (void)t;
#endif
}

/* Writes, flushes, syncs and closes @p f; 0, or the errno of the first
 * failure (EIO when a failure set none). */
static int write_all(FILE *f, const unsigned char *buffer, size_t size)
{
  int err = 0;
  errno = 0;
  if (fwrite(buffer, 1, size, f) != size || fflush(f) != 0) err = errno ? errno : EIO;
#if !defined(_WIN32)
  if (!err && fsync(fileno(f)) != 0) err = errno ? errno : EIO;
#endif
  errno = 0;
  if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
  return err;
}

SsStatus ss_model_save(const SsModel *model, const char *path, char *message, size_t message_size)
{
  if (message && message_size > 0) message[0] = '\0';
  if (!path) return ss_message(SS_ERR_BAD_ARG, message, message_size, "NULL path");
  SsStatus status = ss_model_validate(model, message, message_size);
  if (status != SS_OK) return status;
  SaveTarget target;
  if ((status = save_target(path, &target, message, message_size)) != SS_OK) return status;
  size_t size;
  ss_model_encoded_size(model, &size);
  unsigned char *buffer = malloc(size);
  size_t tmp_size = strlen(target.path) + 32;
  char *tmp = malloc(tmp_size);
  if (!buffer || !tmp) {
    status = ss_message(SS_ERR_ALLOC, message, message_size, "out of memory");
#if !defined(_WIN32)
  } else if (target.in_place) {
    ss_model_encode(model, buffer, size);
    FILE *f = fopen(target.path, "r+b");
    int err = f ? 0 : errno;
    if (f && ftruncate(fileno(f), 0) != 0) err = errno;
    if (f) {
      const int written = write_all(f, buffer, size);
      if (!err) err = written;
    }
    if (err || !f) status = io_failure(message, message_size, path, "write the file", err);
#endif
  } else {
    ss_model_encode(model, buffer, size);
    errno = 0;
    FILE *f = create_temporary(target.path, tmp, tmp_size);
    if (!f) {
      status = io_failure(message, message_size, path, "create a temporary file beside it", errno);
    } else {
      keep_attributes(f, &target);
      int err = write_all(f, buffer, size);
#if defined(_WIN32)
      if (!err) remove(target.path); /* rename does not replace on Windows */
#endif
      if (!err && rename(tmp, target.path) != 0) err = errno ? errno : EIO;
      if (err) {
        remove(tmp);
        status = io_failure(message, message_size, path, "write the file", err);
      }
    }
  }
  free(buffer);
  free(tmp);
  free(target.path);
  return status;
}
