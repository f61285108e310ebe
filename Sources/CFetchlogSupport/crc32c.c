// CRC-32C for event record checksums. Written here (not vendored): the polynomial
// 0x82F63B78 reflected, table-driven fallback plus the SSE4.2 crc32 instruction.
#include "CFetchlogSupport.h"
#include <string.h>

static uint32_t table[8][256];

// Built before main() so no thread ever races to fill it.
__attribute__((constructor)) static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int t = 1; t < 8; t++) { c = table[0][c & 0xff] ^ (c >> 8); table[t][n] = c; }
    }
}

static uint32_t crc_soft(uint32_t crc, const unsigned char *p, size_t n) {
    crc = ~crc;
    while (n >= 8) {
        uint64_t w; memcpy(&w, p, 8);
        w ^= crc;
        crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
              table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
              table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
        p += 8; n -= 8;
    }
    while (n--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
#include <cpuid.h>
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = ~crc;
    while (n >= 8) { uint64_t w; memcpy(&w, p, 8); c = __builtin_ia32_crc32di(c, w); p += 8; n -= 8; }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return ~c32;
}
static int hw_state = 0;
__attribute__((constructor)) static void detect_hw(void) {
    unsigned a, b, c, d;
    hw_state = (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2)) ? 1 : 0;
}
static int have_hw(void) { return hw_state; }
#else
static int have_hw(void) { return 0; }
static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t n) { return crc_soft(crc, p, n); }
#endif

uint32_t fl_crc32c(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = (const unsigned char *)data;
    return have_hw() ? crc_hw(crc, p, length) : crc_soft(crc, p, length);
}

int fl_crc32c_is_hardware(void) { return have_hw(); }
