/* SPDX-License-Identifier: GPL-2.0 */
/* Time and CPU time for the timing figures of the test programs. */
#ifndef P2P_PROG_CLOCK_H
#define P2P_PROG_CLOCK_H

#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* cpu_ns: user + system time this process has used. */
static inline uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

#endif
