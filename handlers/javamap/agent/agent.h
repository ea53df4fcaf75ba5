/* SPDX-License-Identifier: MIT */
/* The javamap JVMTI agent's private interface. */
#ifndef OPJIT_JM_AGENT_H
#define OPJIT_JM_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jvmti.h>

struct agent_opts {
	char *file; /* output path, NULL: /tmp/anon.<pid> */
	int inline_frames;
	char *debug; /* debug log path, "-" for stderr, NULL: none */
};

/* agent_opts.c: parse "file=PATH,inline=yes|no,debug[=PATH]".  0, or
 * -EINVAL with a one-line reason in ERR. */
int agent_opts_parse(const char *s, struct agent_opts *o, char *err,
		     size_t errlen);
void agent_opts_free(struct agent_opts *o);

/* agent_names.c: "com.example.Foo.bar(int, java.lang.String)" from a
 * class signature, method name and method signature.  Writes at most
 * LEN bytes, always terminated; returns the length it wanted. */
size_t agent_name_format(char *buf, size_t len, const char *class_sig,
			 const char *name, const char *sig);
/* "com/example/Foo.java" from "Lcom/example/Foo;" and "Foo.java". */
size_t agent_source_format(char *buf, size_t len, const char *class_sig,
			   const char *source);

/* agent_out.c: the buffered, locked map file. */
int agent_out_open(const char *path, FILE *log);
/* Append one record; the payload is given in up to three parts so that
 * callers need not assemble it.  Thread-safe. */
void agent_out_record(unsigned kind, unsigned flags, const void *p1, size_t n1,
		      const void *p2, size_t n2, const void *p3, size_t n3);
int agent_out_start_flusher(void);
void agent_out_flush(void);
void agent_out_close(void);
uint64_t agent_now_ns(void);
void agent_lock(void);
void agent_unlock(void);

/* agent_method.c: METHOD records, one per jmethodID. */
void agent_method_note(jvmtiEnv *jvmti, jmethodID m);

/* little-endian stores into record payloads */
static inline void agent_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void agent_put32(unsigned char *p, uint32_t v)
{
	agent_put16(p, (uint16_t)v);
	agent_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void agent_put64(unsigned char *p, uint64_t v)
{
	agent_put32(p, (uint32_t)v);
	agent_put32(p + 4, (uint32_t)(v >> 32));
}

extern FILE *agent_log; /* debug log, NULL when off */
extern int agent_inline;

#endif
