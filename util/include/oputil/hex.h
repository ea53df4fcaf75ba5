/* SPDX-License-Identifier: MIT */
/*
 * Hex digits, for the text formats read by hand (perf maps, kallsyms)
 * where strtoull() accepts forms the format never has and costs a good
 * part of a big file's parse.
 */
#ifndef OPUTIL_HEX_H
#define OPUTIL_HEX_H

/* Each byte's hex digit value plus one, 0 for a byte that is not one: a
 * load where two range tests and their branches were most of the time
 * of a 9 MiB perf map's trim. */
static const unsigned char oputil_hex_tab[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The hex digit C's value, either case, or -1. */
static inline int oputil_hex_digit(char c)
{
	return oputil_hex_tab[(unsigned char)c] - 1;
}

#endif
