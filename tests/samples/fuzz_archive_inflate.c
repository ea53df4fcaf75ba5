// SPDX-License-Identifier: GPL-3.0-or-later
/* An archived map is another user's gzip stream: inflate anything, within
 * the ratio and cap, and read back what came out. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-archive", MFD_CLOEXEC);
	char why[256], buf[4096];
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	fd = ops_archived_map_fd(fd, "maps/1/perf-1.map" OPS_ARCHIVE_SUFFIX,
				 why, sizeof(why));
	if (fd < 0)
		return 0;
	/* what a handler does with it: stat, read it through */
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		uint64_t total = 0;

		while ((n = pread(fd, buf, sizeof(buf), (off_t)total)) > 0)
			total += (uint64_t)n;
		if (total != (uint64_t)st.st_size)
			__builtin_trap();
	}
	close(fd);
	return 0;
}
