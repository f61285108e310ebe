#ifndef FETCHLOG_SUPPORT_H
#define FETCHLOG_SUPPORT_H
#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli) of `length` bytes, continuing from `crc` (start with 0).
/// Uses the SSE4.2 instruction where the CPU has it, else a table.
uint32_t fl_crc32c(uint32_t crc, const void *data, size_t length);

/// 1 when the hardware CRC32C path is in use (reported by benchmarks).
int fl_crc32c_is_hardware(void);

/// SHA-256 of `length` bytes into `out` (32 bytes).
void fl_sha256(const void *data, size_t length, uint8_t out[32]);

/// The first occurrence of `needle` in `haystack`, found by memchr on `needle[rare]` (the
/// needle's rarest byte in the haystack, so the vectorised memchr skips most text) and
/// memcmp at each candidate; NULL when there is none.
const void *fl_find_rare(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length, size_t rare);

#endif
