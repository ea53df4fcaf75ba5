// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A handler for opannotate's tests of the code_bytes slot (ABI 1.4),
 * built one way per CODE_* definition.  It claims a process whose comm
 * is "codefake", names [0x1000, 0x1100) "cf:loop", and its code_bytes:
 *   CODE_OK    the bytes of "mov $N,%ecx; 1: dec %ecx; jnz 1b; ret"
 *   CODE_FAIL  fails, saying why
 *   CODE_SEGV  faults, as a bad pointer does
 *   CODE_HUGE  says it has more bytes than any function
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <opjit/anon_handler.h>

#ifndef CODE_NAME
#error "CODE_NAME must be defined"
#endif

static const struct opjit_symbol cf_loop = {
	.struct_size = OPJIT_SYMBOL_SIZE_1_0,
	.name = "cf:loop",
	.start = 0x1000,
	.size = 10,
	.file = "loop.jit",
	.line = 7,
};

__attribute__((unused)) static const uint8_t cf_code[] = {
	0xb9, 0x80, 0x1a, 0x06, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3
};

static int cf_claim(const struct opjit_host *host,
		    const struct opjit_process *proc, void **state, char *err,
		    size_t errlen)
{
	static int token;

	(void)host;
	(void)err;
	(void)errlen;
	if (!proc->comm || strcmp(proc->comm, "codefake"))
		return 0;
	*state = &token;
	return 1;
}

static int cf_resolve(void *state, struct opjit_resolve_batch *b)
{
	size_t i;

	(void)state;
	for (i = 0; i < b->count; i++)
		if (b->addrs[i] >= 0x1000 && b->addrs[i] < 0x1100)
			b->symbols[i] = &cf_loop;
	return 0;
}

static const char *cf_last_error(void *state)
{
	(void)state;
	return "the code store is gone";
}

static void cf_release(void *state)
{
	(void)state;
}

#if defined(CODE_SEGV)
__attribute__((no_sanitize("undefined", "address"))) static void cf_fault(void)
{
	volatile int *volatile p = NULL;

	*p = 1;
}
#endif

static int cf_code_bytes(void *state, const struct opjit_symbol *sym,
			 const uint8_t **code, uint64_t *len, uint64_t *addr,
			 uint64_t *load_ns)
{
	(void)state;
	(void)sym;
	*addr = 0x1000;
	*load_ns = 0;
#if defined(CODE_FAIL)
	(void)code;
	(void)len;
	return -EIO;
#elif defined(CODE_SEGV)
	(void)code;
	(void)len;
	cf_fault();
	return -EIO;
#elif defined(CODE_HUGE)
	*code = cf_code;
	*len = UINT64_MAX / 2;
	return 0;
#else
	*code = cf_code;
	*len = sizeof(cf_code);
	return 0;
#endif
}

static const struct opjit_handler cf_handler = {
	.struct_size = OPJIT_HANDLER_SIZE_1_4,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = CODE_NAME,
	.description = "opannotate test handler " CODE_NAME,
	.claim = cf_claim,
	.resolve = cf_resolve,
	.last_error = cf_last_error,
	.release = cf_release,
	.code_bytes = cf_code_bytes,
};

OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
	if (host_abi_major != OPJIT_HANDLER_ABI_MAJOR || host_abi_minor < 4)
		return NULL;
	return &cf_handler;
}
