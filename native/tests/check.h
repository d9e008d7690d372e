/*
 * check.h - a minimal test harness for the C tests of libfastrmi.
 *
 * Each check prints one line, "ok - NAME" or "not ok - NAME: MESSAGE", and
 * check_summary() prints "N passed, N failed" alone on the last line and returns
 * the process exit status (0 only when nothing failed).
 *
 *     CHECK("version is non-empty", v != NULL && v[0] != '\0', "got \"%s\"", v);
 *     return check_summary();
 */
#ifndef FASTRMI_CHECK_H
#define FASTRMI_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed;
static int check_failed;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void check_report(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		check_passed++;
		printf("ok - %s\n", name);
	} else {
		check_failed++;
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

/* CHECK(name, condition, printf-style message shown when condition is false) */
#define CHECK(name, cond, ...) check_report((name), (cond) ? 1 : 0, __VA_ARGS__)

static int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	fflush(stdout);
	return check_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* FASTRMI_CHECK_H */
