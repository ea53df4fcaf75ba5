// SPDX-License-Identifier: GPL-3.0-or-later
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void launch_child(char *const argv[],
			 const struct launch_signals *signals, int go_fd,
			 int err_fd)
{
	char c;
	int e;

	/* the command gets the signal state we were given, not ours: a
	 * shell's background job keeps ignoring SIGINT */
	signal(SIGPIPE, SIG_DFL);
	for (int i = 0; i < signals->nr; i++)
		sigaction(signals->sig[i], &signals->action[i], NULL);
	sigprocmask(SIG_SETMASK, &signals->mask, NULL);
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(go_fd);
	execvp(argv[0], argv);
	e = errno;
	while (write(err_fd, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int launch_find(const char *file)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return access(file, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, path,
			     len ? "/" : "", file) < (int)sizeof(buf)) {
			if (!access(buf, X_OK) && !stat(buf, &st) &&
			    S_ISREG(st.st_mode))
				return 0;
			if (errno == EACCES)
				err = -EACCES;
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return err;
}

int launch_prepare(struct launch *l, char *const argv[],
		   const struct launch_signals *signals)
{
	int go[2], er[2];
	int err = 0;

	l->pid = -1;
	l->go_fd = l->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	l->pid = fork();
	if (l->pid < 0) {
		err = -errno;
		goto out;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(er[0]);
		launch_child(argv, signals, go[0], er[1]);
	}
	l->go_fd = go[1];
	l->err_fd = er[0];
	go[1] = er[0] = -1;
out:
	close(go[0]);
	close(er[1]);
	if (go[1] >= 0)
		close(go[1]);
	if (er[0] >= 0)
		close(er[0]);
	return err;
}

int launch_go(struct launch *l)
{
	int e = 0;
	ssize_t n;

	close(l->go_fd);
	l->go_fd = -1;
	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	/* end of file: the pipe closed on exec */
	if (n == (ssize_t)sizeof(e))
		return -(e ? e : ENOEXEC);
	return 0;
}

void launch_abort(struct launch *l)
{
	if (l->pid > 0) {
		kill(l->pid, SIGKILL);
		while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->pid = -1;
	l->go_fd = l->err_fd = -1;
}

int launch_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}
