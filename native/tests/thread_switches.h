/*
 * thread_switches.h - how often a thread of this process was switched out so far, for the C tests
 * and tools that count the wake-ups of a wait (test_stream.c, tools/stream_pingpong.c).
 */
#ifndef FASTRMI_THREAD_SWITCHES_H
#define FASTRMI_THREAD_SWITCHES_H

#include <stdio.h>
#include <sys/types.h>

/* A thread's context switches so far, voluntary and not (/proc/self/task/TID/status); -1 when unreadable. */
static long thread_switches(pid_t tid)
{
	char path[64], line[256];
	long v = -1, nv = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "voluntary_ctxt_switches: %ld", &v);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", &nv);
	}
	if (fclose(f) != 0)
		return -1;
	return v < 0 || nv < 0 ? -1 : v + nv;
}

/* A thread's voluntary context switches so far (the times it slept); -1 when unreadable. */
static inline long thread_sleeps(pid_t tid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		sscanf(line, "voluntary_ctxt_switches: %ld", &v);
	if (fclose(f) != 0)
		return -1;
	return v;
}

#endif
