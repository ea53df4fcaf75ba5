// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What a handler's helper process may still do once it has loaded
 * nothing yet.  First it stops being whoever runs opreport: run by root,
 * it becomes nobody (uid and gid 65534, no supplementary groups), so a
 * file only root may read, another user's /proc/PID and any signal to a
 * root process are the kernel's to refuse; run by anyone else, it stays
 * that user, who has nothing more to lose to it.  Then the limits
 * (handler-api/README.md says how they were measured), then the filter:
 * read files, map memory (and make memory a descriptor, to inflate a
 * session's compressed map copies), talk to opreport over its one
 * channel (receiving the map descriptors opreport opened for it), write
 * warnings to stderr, make threads and exit.  Opening a file for writing,
 * sockets and running programs kill the helper (opreport then names the
 * handler and SIGSYS); anything else not listed fails with EPERM, among
 * them the fcntl and ioctl commands that would have the kernel signal
 * another process for it, prlimit on another process, ptrace, and any
 * signal but to itself.  No new privileges first, so the filter cannot be
 * shed by exec'ing something setuid, and so that an unprivileged user may
 * set it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "handler_internal.h"

/* Calls a helper needs with any arguments. */
/* A comparison of argument ARG with every field set: libseccomp's
 * SCMP_A0() leaves datum_b to the compiler, which clang warns about. */
static struct scmp_arg_cmp sandbox_arg(unsigned int arg, enum scmp_compare op,
				       scmp_datum_t a, scmp_datum_t b)
{
	struct scmp_arg_cmp c = { .arg = arg,
				  .op = op,
				  .datum_a = a,
				  .datum_b = b };

	return c;
}

static const int sandbox_allowed[] = {
	SCMP_SYS(read),
	SCMP_SYS(readv),
	SCMP_SYS(pread64),
	SCMP_SYS(preadv),
	SCMP_SYS(lseek),
	SCMP_SYS(close),
	SCMP_SYS(fstat),
	SCMP_SYS(newfstatat),
	SCMP_SYS(stat),
	SCMP_SYS(lstat),
	SCMP_SYS(statx),
	SCMP_SYS(access),
	SCMP_SYS(faccessat),
	SCMP_SYS(faccessat2),
	SCMP_SYS(readlink),
	SCMP_SYS(readlinkat),
	SCMP_SYS(getdents64),
	SCMP_SYS(getcwd),
	SCMP_SYS(dup),
	SCMP_SYS(poll),
	SCMP_SYS(ppoll),
	SCMP_SYS(mmap),
	SCMP_SYS(munmap),
	SCMP_SYS(mprotect),
	SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	SCMP_SYS(brk),
	SCMP_SYS(mincore),
	SCMP_SYS(futex),
	SCMP_SYS(set_robust_list),
	SCMP_SYS(get_robust_list),
	SCMP_SYS(rseq),
	SCMP_SYS(set_tid_address),
	SCMP_SYS(sched_yield),
	SCMP_SYS(sched_getaffinity),
	SCMP_SYS(exit),
	SCMP_SYS(exit_group),
	SCMP_SYS(rt_sigaction),
	SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn),
	SCMP_SYS(sigaltstack),
	SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	SCMP_SYS(getppid),
	SCMP_SYS(getuid),
	SCMP_SYS(geteuid),
	SCMP_SYS(getgid),
	SCMP_SYS(getegid),
	SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_getres),
	SCMP_SYS(clock_nanosleep),
	SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday),
	SCMP_SYS(time),
	SCMP_SYS(getrandom),
	SCMP_SYS(getrlimit),
	SCMP_SYS(uname),
	SCMP_SYS(sysinfo),
	SCMP_SYS(membarrier),
	/* memory behind a descriptor: an archived map, inflated */
	SCMP_SYS(memfd_create),
};

/* Calls that only something hostile makes: kill on sight. */
static const int sandbox_killed[] = {
	SCMP_SYS(socket),
	SCMP_SYS(socketpair),
	SCMP_SYS(connect),
	SCMP_SYS(bind),
	SCMP_SYS(listen),
	SCMP_SYS(accept),
	SCMP_SYS(accept4),
	SCMP_SYS(execve),
	SCMP_SYS(execveat),
	SCMP_SYS(creat),
	SCMP_SYS(process_vm_writev),
	SCMP_SYS(process_vm_readv),
};

/* O_TMPFILE carries O_DIRECTORY, which a plain opendir() sets too */
#define TMPFILE_BIT (O_TMPFILE & ~O_DIRECTORY)
#define WRITE_FLAGS (O_ACCMODE | O_CREAT | O_TRUNC | TMPFILE_BIT)

/* SYS takes its open flags as argument ARG. */
static int sandbox_open_rules(scmp_filter_ctx ctx, int sys, unsigned arg)
{
	static const scmp_datum_t kill[][2] = {
		{ O_ACCMODE, O_WRONLY },      { O_ACCMODE, O_RDWR },
		{ O_CREAT, O_CREAT },	      { O_TRUNC, O_TRUNC },
		{ TMPFILE_BIT, TMPFILE_BIT },
	};
	struct scmp_arg_cmp cmp = {
		.arg = arg,
		.op = SCMP_CMP_MASKED_EQ,
		.datum_a = WRITE_FLAGS,
		.datum_b = 0,
	};
	size_t i;
	int rc;

	rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, sys, 1, &cmp);
	for (i = 0; i < sizeof(kill) / sizeof(kill[0]) && !rc; i++) {
		cmp.datum_a = kill[i][0];
		cmp.datum_b = kill[i][1];
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, sys, 1,
					    &cmp);
	}
	return rc;
}

static int sandbox_fcntl_rules(scmp_filter_ctx ctx);

static int sandbox_rules(scmp_filter_ctx ctx, int fd)
{
	const size_t na = sizeof(sandbox_allowed) / sizeof(int);
	const size_t nk = sizeof(sandbox_killed) / sizeof(int);
	size_t i;
	int rc = 0;

	for (i = 0; i < na && !rc; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sandbox_allowed[i],
				      0);
	for (i = 0; i < nk && !rc; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS,
				      sandbox_killed[i], 0);
	/* files: read-only opens pass, opens that could write kill */
	if (!rc)
		rc = sandbox_open_rules(ctx, SCMP_SYS(openat), 2);
	if (!rc)
		rc = sandbox_open_rules(ctx, SCMP_SYS(open), 1);
	/* openat2 hides its flags behind a pointer: glibc falls back */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				      SCMP_SYS(openat2), 0);
	/* writes: the channel and stderr only */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
				      sandbox_arg(0, SCMP_CMP_EQ,
						  (scmp_datum_t)fd, 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
				      sandbox_arg(0, SCMP_CMP_EQ, 2, 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1,
				      sandbox_arg(0, SCMP_CMP_EQ, 2, 0));
	/* sizing that memory: fds 0 to 3 are /dev/null, stderr and the
	 * channel, and a file opened since is read-only, which truncation
	 * refuses */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ftruncate),
				      1, sandbox_arg(0, SCMP_CMP_GE, 4, 0));
	/* threads, not processes; clone3 hides its flags, so glibc is
	 * sent back to clone */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				      sandbox_arg(0, SCMP_CMP_MASKED_EQ,
						  CLONE_THREAD, CLONE_THREAD));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				      SCMP_SYS(clone3), 0);
	/* abort() and raise() signal the helper itself */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				      sandbox_arg(0, SCMP_CMP_EQ,
						  (scmp_datum_t)getpid(), 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
				      sandbox_arg(0, SCMP_CMP_EQ,
						  (scmp_datum_t)getpid(), 0));
	/* the map descriptors opreport opens for it come this way */
	if (!rc)
		rc = seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, SCMP_SYS(recvmsg), 1,
			sandbox_arg(0, SCMP_CMP_EQ, (scmp_datum_t)fd, 0));
	/* its own limits may be read or lowered, nobody else's */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64),
				      1, sandbox_arg(0, SCMP_CMP_EQ, 0, 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64),
				      1,
				      sandbox_arg(0, SCMP_CMP_EQ,
						  (scmp_datum_t)getpid(), 0));
	if (!rc)
		rc = sandbox_fcntl_rules(ctx);
	return rc;
}

/* fcntl, but for the commands that have the kernel signal a process of
 * the caller's choosing (F_SETOWN, F_SETOWN_EX, F_SETSIG, O_ASYNC through
 * F_SETFL) or watch files for it (leases, notify): those fail with EPERM,
 * as the ioctls FIOASYNC and FIOSETOWN do, ioctl being refused whole. */
static int sandbox_fcntl_rules(scmp_filter_ctx ctx)
{
	static const int cmds[] = {
		F_GETFD,	 F_SETFD,      F_GETFL,	     F_DUPFD,
		F_DUPFD_CLOEXEC, F_GETLK,      F_SETLK,	     F_SETLKW,
		F_OFD_GETLK,	 F_OFD_SETLK,  F_OFD_SETLKW, F_ADD_SEALS,
		F_GET_SEALS,	 F_GETPIPE_SZ, F_GETOWN,     F_GETSIG,
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]) && !rc; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1,
				      sandbox_arg(1, SCMP_CMP_EQ,
						  (scmp_datum_t)cmds[i], 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 2,
				      sandbox_arg(1, SCMP_CMP_EQ, F_SETFL, 0),
				      sandbox_arg(2, SCMP_CMP_MASKED_EQ,
						  O_ASYNC, 0));
	return rc;
}

/* Nobody: the identity a helper run by root takes. */
#define SANDBOX_NOBODY 65534

static int sandbox_identity(char *why, size_t len)
{
	const uid_t uid = SANDBOX_NOBODY;
	const gid_t gid = SANDBOX_NOBODY;
	pid_t parent = getppid();
	uid_t ru, eu, su;

	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		int rc = -errno;

		snprintf(why, len, "cannot become uid %u: %s", (unsigned)uid,
			 strerror(errno));
		return rc;
	}
	if (getresuid(&ru, &eu, &su) < 0 || ru != uid || eu != uid ||
	    su != uid || getegid() != gid) {
		snprintf(why, len, "cannot become uid %u", (unsigned)uid);
		return -EPERM;
	}
	/* the kernel forgets the parent-death signal on a change of
	 * identity: ask again, and go if opreport went meanwhile */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	return 0;
}

/* Bytes of address space mapped now (the memory inherited from
 * opreport, and a sanitizer's reservations): the memory limit comes on
 * top of it. */
static rlim_t sandbox_mapped(void)
{
	return (rlim_t)handler_statm_bytes(HANDLER_STATM_SIZE);
}

static int sandbox_limits(char *why, size_t len)
{
	struct rlimit as, nproc, cpu;
	rlim_t mapped = sandbox_mapped();

	as.rlim_cur = as.rlim_max = mapped + HANDLER_SANDBOX_MEMORY;
	nproc.rlim_cur = nproc.rlim_max = HANDLER_SANDBOX_TASKS;
	cpu.rlim_cur = HANDLER_SANDBOX_CPU_S;
	cpu.rlim_max = HANDLER_SANDBOX_CPU_S + 1;
	if (!mapped) {
		snprintf(why, len, "cannot read its own size from /proc");
		return -ENOENT;
	}
	if (setrlimit(RLIMIT_AS, &as) < 0 || setrlimit(RLIMIT_CPU, &cpu) < 0) {
		int rc = -errno;

		snprintf(why, len, "cannot set its limits: %s",
			 strerror(errno));
		return rc;
	}
	/* counted per user: only nobody's count is the helper's own */
	if (getuid() == SANDBOX_NOBODY &&
	    setrlimit(RLIMIT_NPROC, &nproc) < 0) {
		int rc = -errno;

		snprintf(why, len, "cannot limit its threads: %s",
			 strerror(errno));
		return rc;
	}
	return 0;
}

int handler_sandbox_enter(int fd, char *why, size_t len)
{
	scmp_filter_ctx ctx;
	int rc;

	rc = sandbox_identity(why, len);
	if (!rc)
		rc = sandbox_limits(why, len);
	if (rc < 0)
		return rc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = -errno;
		snprintf(why, len, "cannot drop privileges: %s",
			 strerror(errno));
		return rc;
	}
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx) {
		snprintf(why, len, "cannot set up a seccomp filter");
		return -ENOMEM;
	}
	rc = sandbox_rules(ctx, fd);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0)
		snprintf(why, len, "cannot load the seccomp filter: %s",
			 strerror(-rc));
	return rc;
}
