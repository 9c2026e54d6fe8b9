/* rng.c -- the object's own random generator: xoshiro256** (Blackman and
 * Vigna) seeded by splitmix64. No global state: every stream is a pure
 * function of (seed, stream). */
#include "internal.h"

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

void ss_rng_seed(SsRng *rng, uint64_t seed, uint64_t stream)
{
  /* Mix the stream number in first so that nearby (seed, stream) pairs give
   * unrelated states. */
  uint64_t x = stream;
  uint64_t mixed = seed ^ splitmix64(&x);
  for (int k = 0; k < 4; ++k) rng->s[k] = splitmix64(&mixed);
}

uint64_t ss_rng_next(SsRng *rng)
{
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t ss_rng_below(SsRng *rng, uint64_t bound)
{
#if defined(__SIZEOF_INT128__)
  /* Lemire's multiply-and-reject: one multiplication, a division only in the
   * rare case that the low word falls below the bound. */
  __extension__ typedef unsigned __int128 u128;
  u128 m = (u128)ss_rng_next(rng) * bound;
  uint64_t low = (uint64_t)m;
  if (low < bound) {
    uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = (u128)ss_rng_next(rng) * bound;
      low = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
#else
  /* Reject the top partial block, then reduce: accept x < bound * floor(2^64 / bound). */
  uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound;
  uint64_t x;
  do {
    x = ss_rng_next(rng);
  } while (x > limit);
  return x % bound;
#endif
}

/* Fisher-Yates on perm[0..n), which holds anything. */
static void shuffle(SsRng *rng, int64_t *perm, int64_t n)
{
  for (int64_t k = n - 1; k > 0; --k) {
    int64_t j = (int64_t)ss_rng_below(rng, (uint64_t)k + 1);
    int64_t tmp = perm[k];
    perm[k] = perm[j];
    perm[j] = tmp;
  }
}

/* The block order goes to perm[0, blocks) and is shuffled; then the blocks
 * are written from the end of perm backwards, the last of the order first,
 * each block's rows shuffled where they land. Entries perm[0, q) of the
 * order are still to be read when block q is written at positions >= the
 * rows of those q blocks >= q (every block has a row): no scratch is needed. */
void ss_rng_block_permutation(int64_t *perm, int64_t n, int64_t b, uint64_t seed, uint64_t stream)
{
  SsRng rng;
  ss_rng_seed(&rng, seed, stream);
  const int64_t blocks = (n + b - 1) / b;
  for (int64_t q = 0; q < blocks; ++q) perm[q] = q;
  shuffle(&rng, perm, blocks);
  int64_t end = n;
  for (int64_t q = blocks - 1; q >= 0; --q) {
    const int64_t first = perm[q] * b, size = first + b < n ? b : n - first;
    end -= size;
    for (int64_t k = 0; k < size; ++k) perm[end + k] = first + k;
    shuffle(&rng, perm + end, size);
  }
}

void ss_rng_shuffle(int64_t *list, int64_t n, uint64_t seed, uint64_t stream)
{
  SsRng rng;
  ss_rng_seed(&rng, seed, stream);
  shuffle(&rng, list, n);
}

void ss_rng_permutation(int64_t *perm, int64_t n, uint64_t seed, uint64_t stream)
{
  for (int64_t k = 0; k < n; ++k) perm[k] = k;
  ss_rng_shuffle(perm, n, seed, stream);
}
