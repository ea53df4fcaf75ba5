/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef OPS_CRC32C_INTERNAL_H
#define OPS_CRC32C_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of N bytes; ops_crc32c("123456789", 9) == 0xe3069283. */
uint32_t ops_crc32c(const void *data, size_t n);

#endif /* OPS_CRC32C_INTERNAL_H */
