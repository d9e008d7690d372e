/*
 * internal.h - helpers shared by the sources of libfastrmi.so; not part of the API.
 * Everything declared here has hidden visibility (the library is built with
 * -fvisibility=hidden), so none of it is exported.
 */
#ifndef FASTRMI_INTERNAL_H
#define FASTRMI_INTERNAL_H

#include <stddef.h>

#include "fastrmi.h"

#if defined(__GNUC__)
#define FR_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define FR_PRINTF(fmt, args)
#endif

/*
 * Writes a printf-style message into the caller's error buffer, truncated to fit
 * and always NUL-terminated. Does nothing when err is NULL or errlen is 0.
 */
void fr_seterr(char *err, size_t errlen, const char *fmt, ...) FR_PRINTF(3, 4);

/* Sets the caller's error buffer to "" (when there is one). */
void fr_clearerr(char *err, size_t errlen);

#endif /* FASTRMI_INTERNAL_H */
