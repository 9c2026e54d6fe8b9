/* clock.c -- a monotonic wall clock (elapsed time must not add up CPU time
 * across threads, as VLFeat's clock() did). clock_gettime is POSIX, so this
 * file asks for it itself: a program that compiles the sources directly
 * (docs/embedding.rst) need not pass -D_POSIX_C_SOURCE. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "internal.h"

#if defined(_WIN32)
#include <windows.h>
double ss_clock_seconds(void)
{
  LARGE_INTEGER frequency, counter;
  QueryPerformanceFrequency(&frequency);
  QueryPerformanceCounter(&counter);
  return (double)counter.QuadPart / (double)frequency.QuadPart;
}
#else
#include <time.h>
double ss_clock_seconds(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
