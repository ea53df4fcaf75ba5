/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The user's cache of the kernel's symbol table: reading /proc/kallsyms
 * costs 40 to 60 ms of the kernel's CPU (it formats 120k and more lines
 * on every read), as much as the rest of a short recording's start and
 * stop.  The table only changes with the boot (KASLR), the kernel and
 * the modules loaded, so the first recording of a boot keeps a copy,
 * keyed by all three, that later ones copy instead of reading
 * /proc/kallsyms.  Code that comes and goes within a boot (BPF programs,
 * ftrace trampolines, kprobes' copies) is left out of the copy; the
 * session's stop reads the table again for a sample in it
 * (ops_writer_kernel_symbols_kept()).
 *
 * The cache is a directory of the recorder's user, private to it
 * ($XDG_CACHE_HOME/opjit or ~/.cache/opjit, made 0700), holding one
 * entry; a directory or an entry that is another user's, open to others
 * or a symbolic link is refused with one line, an entry that is not
 * this boot's is not used, and one whose bytes do not match its
 * checksum is read from /proc/kallsyms instead.  Beside the entry, its
 * table's index (ksymcache_index.c), which the trim at each stop
 * searches instead of reading the session's whole copy.
 */
#ifndef OPROFILED_KSYMCACHE_H
#define OPROFILED_KSYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the key and the table come from (the real files, or a test's). */
struct ksymcache_sources {
	const char *kallsyms; /* /proc/kallsyms */
	const char *modules;  /* /proc/modules; NULL: a kernel without */
	const char *notes;    /* /sys/kernel/notes: the build id */
	const char *boot_id;  /* /proc/sys/kernel/random/boot_id */
};

struct ksymcache {
	int dfd;   /* the cache directory */
	char *dir; /* its path, for messages */
	char *key; /* what identifies this boot's table */
	size_t key_len;
	char name[40];	/* the entry's name: a hash of the key */
	char **modules; /* the names of the modules loaded */
	size_t nr_modules;
	/* the entry ksymcache_lookup() found: where its table starts,
	 * its size and checksum */
	long long table_at;
	unsigned long long table_size;
	unsigned table_crc;
};

/* Open the cache in DIR (NULL: $XDG_CACHE_HOME/opjit or
 * ~/.cache/opjit), making it if missing, and compute the key from SRC.
 * 0, or -1 when there is no cache to use (one line said why when it is
 * refused). */
int ksymcache_open(struct ksymcache *c, const char *dir,
		   const struct ksymcache_sources *src);

/* A descriptor of the entry's table, at its first byte, when the cache
 * holds this key's and its bytes check; -1 otherwise. */
int ksymcache_lookup(struct ksymcache *c);

/* Keep the table FD holds (from its start: a copy of SRC's kallsyms
 * just made) as this key's entry, the code that comes and goes left
 * out, in place of any entry there was.  Failing to is not an error. */
void ksymcache_fill(struct ksymcache *c, int fd);

/* The index of the entry ksymcache_lookup() opened as FD (at any
 * offset) for the trim at the stop (ops_kallsyms_index_build()), into
 * *OUT (malloc'ed, *LEN bytes): kept beside the entry, made from its
 * table the first time it is asked for (and again when it is another
 * table's; one line when it is damaged).  0, or -1 without one. */
int ksymcache_index(struct ksymcache *c, int fd, uint8_t **out, size_t *len);

void ksymcache_close(struct ksymcache *c);

/* FD's status (a file NAME of the cache, NULL for the directory when
 * DIR) fits a file of ours, or one line says why not. */
bool ksymcache_ours(const struct ksymcache *c, const char *name, int fd,
		    bool dir);

#endif
