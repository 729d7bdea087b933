// SPDX-License-Identifier: GPL-2.0
/*
 * asuser UID FILE: as user UID (and group UID, no supplementary groups),
 * open FILE read-write and, if that works, mmap one page of it. Prints
 * open=OK|<errno name> and mmap=OK|<errno name>|skipped; exits 0 if both
 * were refused, 1 if either worked, 2 on a usage or setup error.
 *
 * For the access-control test of p2pmem/allocate: busybox has no way to
 * drop root for one command without a passwd database.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *errname(int err)
{
	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	default: return strerror(err);
	}
}

int main(int argc, char **argv)
{
	uid_t uid;
	void *p;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: asuser UID FILE\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 0);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("dropping root");
		return 2;
	}
	if (getuid() != uid || geteuid() != uid) {
		fprintf(stderr, "still uid %d\n", (int)geteuid());
		return 2;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		printf("open=%s\nmmap=skipped\n", errname(errno));
		return 0;
	}
	printf("open=OK\n");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("mmap=%s\n", errname(errno));
		return 1;
	}
	printf("mmap=OK\n");
	return 1;
}
