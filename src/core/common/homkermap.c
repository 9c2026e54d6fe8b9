/* homkermap.c -- the homogeneous kernel map: its coefficients, the map of
 * one scalar, the explicit expansion of a data set, and the mapped row
 * products used when a map is attached to a descriptor (math: homkermap.h).
 *
 * On the fly, a row costs per stored coordinate one log, one square root (or
 * pow for gamma != 1), one sincos and 2 order + 1 multiply-adds: the cosines
 * and sines of the frequencies m_k theta come from rotating (cos theta,
 * sin theta) step by step. Nothing is written but the caller's vectors, so a
 * map can be shared by concurrent trainings.
 */
#include "internal.h"

#include <string.h>

#define SS_PI 3.14159265358979323846

/* ------------------------------------------------------------------------ */
/*                         Signatures and spectra                           */
/* ------------------------------------------------------------------------ */

/* K(l), the kernel at x = e^(l/2), y = e^(-l/2); even in l. */
static double signature(SsHomKernel kernel, double l)
{
  l = fabs(l);
  switch (kernel) {
    case SS_HOMKERNEL_INTERSECTION: return exp(-0.5 * l);
    case SS_HOMKERNEL_CHI2: return 2.0 / (exp(0.5 * l) + exp(-0.5 * l));
    case SS_HOMKERNEL_JS: {
      /* log2(1 + e^-l) and log2(1 + e^l) = (l + log(1 + e^-l)) / ln 2, l >= 0.
       * e^(l/2) tail is computed as exp(l/2 + log(tail)): the product would
       * be inf * 0 = NaN once e^(l/2) overflows (l > 1419). */
      double tail = log1p(exp(-l));
      return (exp(0.5 * l + log(tail)) + exp(-0.5 * l) * (l + tail)) / (2.0 * log(2.0));
    }
  }
  return 0;
}

/* kappa(w) = 1/(2 pi) int K(l) e^(-i w l) dl. */
static double spectrum(SsHomKernel kernel, double w)
{
  double sech = 2.0 / (exp(SS_PI * w) + exp(-SS_PI * w));
  switch (kernel) {
    case SS_HOMKERNEL_INTERSECTION: return (2.0 / SS_PI) / (1 + 4 * w * w);
    case SS_HOMKERNEL_CHI2: return sech;
    case SS_HOMKERNEL_JS: return (2.0 / log(4.0)) * sech / (1 + 4 * w * w);
  }
  return 0;
}

/* Where the signatures are negligible. Every K above satisfies
 * K(l) <= (l + 2) e^(-l/2) for l >= 0 (JS: log2(1 + e^-l) <= e^-l / ln 2 and
 * log2(1 + e^l) <= (l + 1) / ln 2), so
 *     int_T^inf K(l) dl <= (2 T + 8) e^(-T/2) = 4.0e-20 for T = 100,
 * while int_0^inf K(l) dl = pi kappa(0) >= 2: truncating the integral at T
 * changes c_m by less than 2e-20 relative to c_0, far below rounding. */
#define SS_HOMKERMAP_SIGNATURE_SUPPORT 100.0

/* c_m, the m-th Fourier coefficient of the periodic signature (homkermap.h).
 *
 * Rectangular window, c_m = (2/P) int_0^{P/2} K(l) cos(m L l) dl:
 * - intersection: in closed form. With w = m L and w P/2 = m pi,
 *       int_0^{P/2} e^(-l/2) cos(w l) dl = (1/2) (1 - (-1)^m e^(-P/4)) / (1/4 + w^2),
 *   so c_m = (1/P) (1 - (-1)^m e^(-P/4)) / (1/4 + w^2), evaluated without
 *   overflow at both ends of the range of P (1 - e^(-P/4) as -expm1(-P/4)).
 * - chi2, JS: Simpson's rule on [0, b], b = min(P/2, T) (T above), with
 *   128 (m + 8) intervals: at least 64 nodes per period of the cosine, and a
 *   step b / 1024 <= 0.1 for the signature (whose scale is 1). The integrand
 *   is even in l, so the endpoint corrections of the Euler-Maclaurin series
 *   vanish at 0 and are below e^(-T/2) at b = T: the error is far smaller
 *   than Simpson's h^4 bound (1e-15 relative, measured against adaptive
 *   quadrature in tests/test_homkermap.py). Integrating over the whole
 *   period instead made the step P/2048: for periods beyond about 1e3 the
 *   nodes stepped over the signature's whole support and c_m was wrong by
 *   factors up to 1e7 at P = 1e12. */
static double fourier_coefficient(const SsHomKerMap *map, int m)
{
  const double P = map->period, L = 2 * SS_PI / P;
  if (map->window == SS_HOMWINDOW_UNIFORM) return L * spectrum(map->kernel, m * L);
  if (map->kernel == SS_HOMKERNEL_INTERSECTION) {
    const double e = exp(-0.25 * P), num = m % 2 ? 1 + e : -expm1(-0.25 * P);
    /* (num / P) / (1/4 + w^2), with P^2 brought inside for small P and m > 0
     * (w^2 would overflow) and kept outside otherwise (P^2 would overflow
     * for large P, 1/4 P^2 underflow to 0 for m = 0). */
    if (P < 1 && m > 0) return P * num / (0.25 * P * P + 4 * SS_PI * SS_PI * (double)m * m);
    const double w = m * L;
    return (num / P) / (0.25 + w * w);
  }
  const int intervals = 128 * (m + 8); /* even */
  const double a = 0.5 * P;
  const double b = a < SS_HOMKERMAP_SIGNATURE_SUPPORT ? a : SS_HOMKERMAP_SIGNATURE_SUPPORT;
  const double h = b / intervals;
  double sum = signature(map->kernel, 0) + signature(map->kernel, b) * cos(m * L * b);
  for (int k = 1; k < intervals; ++k) {
    double l = k * h;
    sum += (k % 2 ? 4 : 2) * signature(map->kernel, l) * cos(m * L * l);
  }
  /* (2/P) (h/3) sum = (sum / (3 intervals)) (2b / P), with 2b / P = 1 when
   * b = P/2; (2/P) sum first would overflow for the smallest periods. */
  return sum / (3.0 * intervals) * (b < a ? 2.0 * b / P : 1.0);
}

static double automatic_period(SsHomKernel kernel, SsHomWindow window, int order)
{
  double n = order, p = 1;
  if (window == SS_HOMWINDOW_UNIFORM) {
    switch (kernel) {
      case SS_HOMKERNEL_CHI2: p = 5.86 * sqrt(n) + 3.65; break;
      case SS_HOMKERNEL_JS: p = 6.64 * sqrt(n) + 7.24; break;
      case SS_HOMKERNEL_INTERSECTION: p = 2.38 * log(n + 0.8) + 5.6; break;
    }
  } else {
    switch (kernel) {
      case SS_HOMKERNEL_CHI2: p = 8.80 * sqrt(n + 4.44) - 12.6; break;
      case SS_HOMKERNEL_JS: p = 9.63 * sqrt(n + 1.00) - 2.93; break;
      case SS_HOMKERNEL_INTERSECTION: p = 2.00 * log(n + 0.99) + 3.52; break;
    }
  }
  return p > 1 ? p : 1;
}

/* ------------------------------------------------------------------------ */
/*                                 The map                                  */
/* ------------------------------------------------------------------------ */

SsStatus ss_homkermap_init(SsHomKerMap *map, SsHomKernel kernel, double gamma, int order,
                           double period, SsHomWindow window)
{
  if (!map) return SS_ERR_BAD_ARG;
  if (kernel != SS_HOMKERNEL_INTERSECTION && kernel != SS_HOMKERNEL_CHI2 && kernel != SS_HOMKERNEL_JS)
    return SS_ERR_BAD_ARG;
  if (window != SS_HOMWINDOW_UNIFORM && window != SS_HOMWINDOW_RECTANGULAR) return SS_ERR_BAD_ARG;
  if (!(isfinite(gamma) && gamma > 0)) return SS_ERR_BAD_ARG;
  if (order < 0 || order > SS_HOMKERMAP_MAX_ORDER || isnan(period) || period == INFINITY)
    return SS_ERR_BAD_ARG;
  /* The angle (2 pi / P) ln x must be finite for every double x (|ln x| < 745). */
  if (period > 0 && !isfinite(2 * SS_PI / period * 745.2)) return SS_ERR_BAD_ARG;

  SsHomKerMap m;
  memset(&m, 0, sizeof m);
  m.kernel = kernel;
  m.window = window;
  m.gamma = gamma;
  m.order = order;
  m.period = period > 0 ? period : automatic_period(kernel, window, order);

  double c0 = fourier_coefficient(&m, 0);
  m.frequency[0] = 0;
  m.coefficient[0] = sqrt(c0 > 0 ? c0 : 0);
  /* The first `order` frequencies with a positive coefficient, up to 3 order + 2;
   * slots left over keep coefficient 0 (their features are 0). */
  int k = 1;
  for (int f = 1; k <= order && f <= 3 * order + 2; ++f) {
    double c = fourier_coefficient(&m, f);
    if (!(c > 0)) continue;
    m.frequency[k] = f;
    m.coefficient[k] = sqrt(2 * c);
    ++k;
  }
  for (; k <= order; ++k) m.frequency[k] = m.frequency[k - 1] + 1;
  *map = m;
  return SS_OK;
}

int64_t ss_homkermap_dimension(const SsHomKerMap *map)
{
  return map ? 2 * (int64_t)map->order + 1 : 0;
}

/* The magnitude x^(gamma/2) and angle L ln x of a nonzero |x|. */
static inline void polar(const SsHomKerMap *map, double x, double *radius, double *theta)
{
  *radius = map->gamma == 1.0 ? sqrt(x) : pow(x, 0.5 * map->gamma);
  *theta = (2 * SS_PI / map->period) * log(x);
}

/* Walk the frequencies: calls BODY(k, cos(m_k theta), sin(m_k theta)) for k = 1..order. */
#define SS_FOR_EACH_FREQUENCY(map, theta, BODY)                                  \
  do {                                                                           \
    const double c1_ = cos(theta), s1_ = sin(theta);                             \
    double cm_ = 1.0, sm_ = 0.0;                                                 \
    int m_ = 0;                                                                  \
    for (int k_ = 1; k_ <= (map)->order; ++k_) {                                 \
      while (m_ < (map)->frequency[k_]) {                                        \
        double next_ = cm_ * c1_ - sm_ * s1_;                                    \
        sm_ = sm_ * c1_ + cm_ * s1_;                                             \
        cm_ = next_;                                                             \
        ++m_;                                                                    \
      }                                                                          \
      BODY(k_, cm_, sm_);                                                        \
    }                                                                            \
  } while (0)

void ss_homkermap_evaluate(const SsHomKerMap *map, double x, double *dest, int64_t stride)
{
  const int64_t D = 2 * (int64_t)map->order + 1;
  if (x == 0) {
    for (int64_t r = 0; r < D; ++r) dest[r * stride] = 0;
    return;
  }
  double radius, theta;
  polar(map, fabs(x), &radius, &theta);
  if (x < 0) radius = -radius;
  dest[0] = radius * map->coefficient[0];
#define SS_WRITE(k, c, s)                                         \
  do {                                                            \
    dest[(2 * (k) - 1) * stride] = radius * map->coefficient[k] * (c); \
    dest[(2 * (k)) * stride] = radius * map->coefficient[k] * (s);     \
  } while (0)
  SS_FOR_EACH_FREQUENCY(map, theta, SS_WRITE);
#undef SS_WRITE
}

/* <Psi(x), w[0 .. 2 order]>. */
double ss_homkermap_dot(const SsHomKerMap *map, double x, const double *w)
{
  if (x == 0) return 0;
  double radius, theta;
  polar(map, fabs(x), &radius, &theta);
  double sum = map->coefficient[0] * w[0];
#define SS_DOT(k, c, s) (sum += map->coefficient[k] * ((c) * w[2 * (k) - 1] + (s) * w[2 * (k)]))
  SS_FOR_EACH_FREQUENCY(map, theta, SS_DOT);
#undef SS_DOT
  return x < 0 ? -radius * sum : radius * sum;
}

/* w[0 .. 2 order] += a Psi(x). */
void ss_homkermap_axpy(const SsHomKerMap *map, double x, double *w, double a)
{
  if (x == 0) return;
  double radius, theta;
  polar(map, fabs(x), &radius, &theta);
  const double scale = x < 0 ? -a * radius : a * radius;
  w[0] += scale * map->coefficient[0];
#define SS_AXPY(k, c, s)                                    \
  do {                                                      \
    w[2 * (k) - 1] += scale * map->coefficient[k] * (c);    \
    w[2 * (k)] += scale * map->coefficient[k] * (s);        \
  } while (0)
  SS_FOR_EACH_FREQUENCY(map, theta, SS_AXPY);
#undef SS_AXPY
}

/* ------------------------------------------------------------------------ */
/*                          Data with a map attached                        */
/* ------------------------------------------------------------------------ */

SsStatus ss_data_set_homkermap(SsData *data, const SsHomKerMap *map)
{
  if (!data) return SS_ERR_BAD_ARG;
  if (map && data->dimension > INT64_MAX / ss_homkermap_dimension(map)) return SS_ERR_BAD_ARG;
  data->homkermap = map;
  return SS_OK;
}

static double value_at(const SsData *data, int64_t k)
{
  return data->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)data->values)[k]
                                         : ((const double *)data->values)[k];
}

double ss_data_mapped_inner_product(const SsData *data, int64_t i, const double *w)
{
  const SsHomKerMap *map = data->homkermap;
  const int64_t D = ss_homkermap_dimension(map);
  double sum = 0;
  if (data->layout == SS_LAYOUT_DENSE) {
    for (int64_t j = 0, k = i * data->row_stride; j < data->dimension; ++j, ++k)
      sum += ss_homkermap_dot(map, value_at(data, k), w + j * D);
  } else {
    for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k)
      sum += ss_homkermap_dot(map, value_at(data, k), w + data->indices[k] * D);
  }
  return sum;
}

void ss_data_mapped_accumulate(const SsData *data, int64_t i, double *w, double a)
{
  const SsHomKerMap *map = data->homkermap;
  const int64_t D = ss_homkermap_dimension(map);
  if (data->layout == SS_LAYOUT_DENSE) {
    for (int64_t j = 0, k = i * data->row_stride; j < data->dimension; ++j, ++k)
      ss_homkermap_axpy(map, value_at(data, k), w + j * D, a);
  } else {
    for (int64_t k = data->indptr[i]; k < data->indptr[i + 1]; ++k)
      ss_homkermap_axpy(map, value_at(data, k), w + data->indices[k] * D, a);
  }
}

/* Whether the D values at dest are finite. */
static int all_finite(const double *dest, int64_t D)
{
  int finite = 1;
  for (int64_t r = 0; r < D; ++r) finite &= isfinite(dest[r]) != 0;
  return finite;
}

SsStatus ss_homkermap_expand(const SsHomKerMap *map, const SsData *data, double *values,
                             int32_t *indices, int64_t *indptr)
{
  if (!map || !data || !values || data->homkermap) return SS_ERR_BAD_ARG;
  const int64_t D = ss_homkermap_dimension(map), n = data->num_data, d = data->dimension;
  int finite = 1; /* |x|^(gamma/2) overflows for a large |x| and gamma > 2 */
  if (data->layout == SS_LAYOUT_DENSE) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < d; ++j) {
        double *dest = values + (i * d + j) * D;
        ss_homkermap_evaluate(map, value_at(data, i * data->row_stride + j), dest, 1);
        finite &= all_finite(dest, D);
      }
    return finite ? SS_OK : SS_ERR_NUMERIC;
  }
  if (indices && d > ((int64_t)INT32_MAX + 1) / D) return SS_ERR_BAD_ARG;
  for (int64_t i = 0; i <= n && indptr; ++i) indptr[i] = data->indptr[i] * D;
  for (int64_t k = 0; k < data->indptr[n]; ++k) {
    ss_homkermap_evaluate(map, value_at(data, k), values + k * D, 1);
    finite &= all_finite(values + k * D, D);
    if (indices)
      for (int64_t r = 0; r < D; ++r) indices[k * D + r] = (int32_t)(data->indices[k] * D + r);
  }
  return finite ? SS_OK : SS_ERR_NUMERIC;
}
