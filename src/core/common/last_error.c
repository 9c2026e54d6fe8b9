/* last_error.c -- formatting the message of an object's last failed call. */
#include "last_error.h"

#include <stdio.h>

SsStatus ss_last_error_vset(SsLastError *error, SsStatus status, const char *format, va_list args)
{
  vsnprintf(error->text, sizeof error->text, format, args);
  return status;
}

SsStatus ss_last_error_clear(SsLastError *error)
{
  error->text[0] = '\0';
  return SS_OK;
}
