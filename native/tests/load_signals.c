/*
 * load_signals.c - loading libfastrmi.so leaves the JVM's signals and code alone.
 *
 * UCX installs handlers for SIGSEGV and friends in its constructor unless UCX_ERROR_SIGNALS says
 * otherwise; a JVM raises SIGSEGV on purpose, so such a handler kills it. UCX rewrites libc's
 * mmap in place when it loads unless UCX_MEM_EVENTS says otherwise; a thread inside mmap then
 * dies. libfastrmi.so's own constructor (src/signals.c, run first through -z initfirst) sets both
 * variables, whatever binds the library. This test loads it as a JVM does, with dlopen, so it is
 * not linked with it; each case runs in a child of its own, with a clean environment.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static const int fr_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static char library[PATH_MAX];

/* libfastrmi.so next to this test. */
static int find_library(void)
{
	ssize_t n = readlink("/proc/self/exe", library, sizeof(library) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	library[n] = '\0';
	slash = strrchr(library, '/');
	if (slash == NULL || (size_t)(slash - library) + sizeof("/libfastrmi.so") > sizeof(library))
		return -1;
	strcpy(slash, "/libfastrmi.so");
	return 0;
}

#define FR_SIGNALS (sizeof(fr_signals) / sizeof(fr_signals[0]))

/*
 * In a child: 0 when the load changed no signal's handler, else 1 + the first it changed (a
 * sanitizer's runtime may have installed its own before).
 */
static int load_and_look(const char *user_setting)
{
	struct sigaction before[FR_SIGNALS], after;
	const char *value;
	void *handle;

	if (unsetenv("UCX_ERROR_SIGNALS") != 0 || (user_setting != NULL && setenv("UCX_ERROR_SIGNALS", user_setting, 1) != 0))
		return 100;
	for (size_t i = 0; i < FR_SIGNALS; i++)
		if (sigaction(fr_signals[i], NULL, &before[i]) != 0)
			return 103;
	handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL) {
		fprintf(stderr, "# dlopen(%s): %s\n", library, dlerror());
		return 101;
	}
	value = getenv("UCX_ERROR_SIGNALS");
	if (value == NULL || strcmp(value, user_setting != NULL ? user_setting : "") != 0) {
		fprintf(stderr, "# UCX_ERROR_SIGNALS after the load: %s\n", value != NULL ? value : "(unset)");
		return 102;
	}
	for (size_t i = 0; i < FR_SIGNALS; i++) {
		if (sigaction(fr_signals[i], NULL, &after) != 0)
			return 103;
		if (after.sa_handler != before[i].sa_handler)
			return 1 + fr_signals[i];
	}
	if (dlclose(handle) != 0) {
		fprintf(stderr, "# dlclose: %s\n", dlerror());
		return 104;
	}
	return 0;
}

#define MMAP_HEAD 16 /* bytes of mmap's code compared: UCX's patch is a jump over its first ones */

/*
 * In a child: 0 when loading the library and opening UCX left the first bytes of libc's mmap as
 * they were, 1 when they changed, 100+ when the load or the probe failed.
 */
static int load_and_look_at_mmap(const char *user_setting)
{
	unsigned char before[MMAP_HEAD];
	int (*probe)(char *, size_t);
	const unsigned char *code;
	void *handle, *libc;
	char err[256];

	if (unsetenv("UCX_MEM_EVENTS") != 0 || (user_setting != NULL && setenv("UCX_MEM_EVENTS", user_setting, 1) != 0))
		return 100;
	/* libc's own mmap, which UCX patches: a sanitizer's runtime puts its own before it. */
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	code = libc != NULL ? (const unsigned char *)dlsym(libc, "mmap") : NULL;
	if (code == NULL)
		return 103;
	memcpy(before, code, sizeof(before));
	handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL) {
		fprintf(stderr, "# dlopen(%s): %s\n", library, dlerror());
		return 101;
	}
	*(void **)&probe = dlsym(handle, "fastrmi_ucx_probe");
	if (probe == NULL || probe(err, sizeof(err)) != 0) {
		fprintf(stderr, "# fastrmi_ucx_probe: %s\n", probe == NULL ? dlerror() : err);
		return 102;
	}
	return memcmp(before, code, sizeof(before)) != 0;
}

static int in_child(int (*look)(const char *), const char *user_setting)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(look(user_setting));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	int rc;

	if (find_library() != 0) {
		CHECK("libfastrmi.so is found next to the test", 0, "readlink(/proc/self/exe): %s", strerror(errno));
		return check_summary();
	}
	rc = in_child(load_and_look, NULL);
	CHECK("loading libfastrmi.so installs no handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT",
	      rc == 0, "status %d (1 + a signal: the load installed a handler for it; 100+: the load failed)", rc);
	/* A setting of the user's own is theirs: kept. */
	rc = in_child(load_and_look, "SIGILL");
	CHECK("a UCX_ERROR_SIGNALS the user set is left as it is (UCX then catches SIGILL)", rc == 1 + SIGILL,
	      "status %d (102: the variable was changed)", rc);
	rc = in_child(load_and_look_at_mmap, NULL);
	CHECK("loading libfastrmi.so and opening UCX leave libc's mmap as it was (no memory hooks)", rc == 0,
	      "status %d (1: mmap was rewritten; 100+: the load or the probe failed)", rc);
	rc = in_child(load_and_look_at_mmap, "yes");
	CHECK("a UCX_MEM_EVENTS=yes the user set is left as it is (UCX then hooks mmap)", rc == 1,
	      "status %d (0: mmap was left as it was)", rc);
	return check_summary();
}
