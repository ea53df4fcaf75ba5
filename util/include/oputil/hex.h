/* SPDX-License-Identifier: MIT */
/*
 * Hex digits, for the text formats read by hand (perf maps, kallsyms)
 * where strtoull() accepts forms the format never has and costs a good
 * part of a big file's parse.
 */
#ifndef OPUTIL_HEX_H
#define OPUTIL_HEX_H

/* The hex digit C's value, either case, or -1. */
static inline int oputil_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#endif
