/*
 * thread_switches.h - how often a thread of this process was switched out so far, for the C tests
 * and tools that count the wake-ups of a wait (test_stream.c, tools/stream_pingpong.c).
 */
#ifndef FASTRMI_THREAD_SWITCHES_H
#define FASTRMI_THREAD_SWITCHES_H

#include <stdio.h>
#include <sys/types.h>

/* A thread's voluntary and involuntary context switches so far (/proc/self/task/TID/status): 0, or -1 when unreadable. */
static inline int thread_switch_counts(pid_t tid, long *voluntary, long *involuntary)
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
	if (fclose(f) != 0 || v < 0 || nv < 0)
		return -1;
	*voluntary = v;
	*involuntary = nv;
	return 0;
}

/* A thread's context switches so far, voluntary and not; -1 when unreadable. */
static inline long thread_switches(pid_t tid)
{
	long v, nv;

	return thread_switch_counts(tid, &v, &nv) == 0 ? v + nv : -1;
}

/* A thread's voluntary context switches so far (the times it slept); -1 when unreadable. */
static inline long thread_sleeps(pid_t tid)
{
	long v, nv;

	return thread_switch_counts(tid, &v, &nv) == 0 ? v : -1;
}

#endif
